//! `kalah serve`: a perfect-play explorer in the browser, and its JSON API.
//!
//! The page (HTML, CSS and JavaScript in this folder, compiled into the binary) draws the
//! board and asks the API for the value of every legal move; the API answers from the
//! endgame database where the position is inside it, from a proof of `kalah prove` where
//! the position is its root ([`proofs`]), otherwise from a search with a time budget
//! ([`engine`]). Requests are checked as the command line is ([`params`]).

mod api;
mod engine;
mod params;
mod proofs;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

pub use engine::Limits;
pub use proofs::{default_dir as default_proofs_dir, Proofs};

use crate::args::RulesArgs;

/// What every handler shares.
pub struct App {
    explorer: Arc<engine::Explorer>,
    /// The server's rule switches, as flags (the defaults of every request).
    defaults: Vec<(String, String)>,
    /// The proofs read at startup: their roots are answered from them.
    proofs: Proofs,
}

const PAGE_HTML: &str = include_str!("page.html");
const PAGE_CSS: &str = include_str!("page.css");
const PAGE_JS: &str = include_str!("page.js");

/// The routes of the page and the API.
fn router(app: Arc<App>) -> Router {
    let page = |body: &'static str, kind: &'static str| {
        move || async move { ([(header::CONTENT_TYPE, kind)], body).into_response() }
    };
    Router::new()
        .route("/", get(page(PAGE_HTML, "text/html; charset=utf-8")))
        .route("/page.css", get(page(PAGE_CSS, "text/css; charset=utf-8")))
        .route(
            "/page.js",
            get(page(PAGE_JS, "text/javascript; charset=utf-8")),
        )
        .route("/api/moves", get(api::moves))
        .route("/api/play", get(api::play))
        .route("/api/position", get(api::position))
        .route("/api/fair", get(api::fair))
        .route("/api/config", get(api::config))
        .route("/api/{*rest}", get(api::not_found))
        .with_state(app)
}

/// Serve on `addr` until interrupted (Ctrl-C). `ready` hears of the address bound (the
/// port chosen when `addr` asks for port 0).
pub fn run(
    rules: &RulesArgs,
    db: Option<PathBuf>,
    addr: SocketAddr,
    limits: Limits,
    proofs: Proofs,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let app = Arc::new(App {
        explorer: Arc::new(engine::Explorer::new(db, limits)),
        defaults: params::default_flags(rules),
        proofs,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        ready(listener.local_addr()?);
        axum::serve(listener, router(app))
            .with_graceful_shutdown(async {
                // Without a signal handler the server runs until killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
            })
            .await
    })
}
