//! The explorer page in a real browser (headless Chromium through chromedriver's
//! WebDriver protocol, spoken over std's TCP: no client crate needed for a dozen
//! commands). Opt-in: run by `scripts/browser-test.sh`, which installs Debian's
//! `chromium` and `chromium-driver`, builds the 12-seed database of Kalah(6,4) and sets
//! `KALAH_BROWSER_DB` for the main test, which writes a screenshot to
//! `results/serve-screenshot.png` (or `KALAH_SCREENSHOT`). The tests of links and of the
//! proofs need no database (`cargo test --release -p tools --test browser -- --ignored
//! link proofs` with chromium and chromedriver installed).
//!
//! The binaries are `KALAH_CHROMEDRIVER` and `KALAH_CHROMIUM` where set, else found by
//! their Debian names (`chromedriver`, `chromium`) on `PATH` or in `/usr/lib/chromium/`
//! ([`find_exe`]); a test run without them says which one is missing and where it looked.

mod common;
use common::kalah_stdout as kalah;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{api_moves, enc, request, Server, NO_SEARCH};
use serde_json::{json, Value};

/// The longest the page may take to show a search's values (Kalah(6,4) from the start,
/// a minute or two on two cores).
const SEARCH_WAIT: Duration = Duration::from_secs(1200);

/// A chromedriver child and one session on it.
struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

impl Browser {
    fn start() -> Browser {
        let exe = browser_exe("KALAH_CHROMEDRIVER", &["chromedriver"]);
        let binary = browser_exe("KALAH_CHROMIUM", &["chromium", "chromium-browser"]);
        let port = free_port();
        let driver = Command::new(&exe)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
        let t = Instant::now();
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": binary.display().to_string(),
                "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--window-size=1280,900", "--disable-gpu"],
            },
        }}});
        let mut b = Browser {
            driver,
            port,
            session: String::new(),
        };
        let v = b.call("POST", "/session", Some(caps));
        b.session = v["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {v}"))
            .to_string();
        b
    }

    /// One WebDriver command: its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string());
        let (status, text) = request(self.port, method, path, body.as_deref());
        let v: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {path}: {status} {text:?}: {e}"));
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    fn goto(&self, url: &str) {
        self.session_call("POST", "/url", Some(json!({ "url": url })));
    }

    /// Run `script` (a function body) in the page.
    fn js(&self, script: &str) -> Value {
        self.session_call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    /// A real click on the element `css` selects.
    fn click(&self, css: &str) {
        let v = self.session_call(
            "POST",
            "/element",
            Some(json!({ "using": "css selector", "value": css })),
        );
        let id = v
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {v}"))
            .to_string();
        self.session_call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Wait until `script` returns true.
    fn wait(&self, what: &str, limit: Duration, script: &str) {
        let t = Instant::now();
        loop {
            if self.js(script) == Value::Bool(true) {
                return;
            }
            if t.elapsed() > limit {
                let status = self.js("return document.getElementById('status').textContent");
                let error = self.js("return document.getElementById('error').textContent");
                panic!("waited {limit:?} for {what}; status {status}, error {error}");
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Wait for the page's exact values and return them as (move, value), best first.
    fn values(&self, what: &str) -> Vec<(String, i64)> {
        self.wait(
            what,
            SEARCH_WAIT,
            "return document.getElementById('status').dataset.state === 'exact'",
        );
        let v = self.js("return [...document.querySelectorAll('#moves tbody tr')]\
             .map(tr => [tr.dataset.move, Number(tr.dataset.value)])");
        pairs(&v)
    }

    fn position(&self) -> String {
        self.js("return document.getElementById('position').value")
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn screenshot(&self, path: &std::path::Path) {
        let v = self.session_call("GET", "/screenshot", None);
        let png = base64(v.as_str().expect("a base64 screenshot"));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(
                self.port,
                "DELETE",
                &format!("/session/{}", self.session),
                None,
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Debian's directory of the Chromium binaries, where `chromedriver` may be without a link
/// on `PATH`.
const DEBIAN_CHROMIUM_DIR: &str = "/usr/lib/chromium";

/// The executable named by the environment variable `var`, else the first of `names` in
/// a directory of `PATH` or Debian's [`DEBIAN_CHROMIUM_DIR`]; a panic naming what is
/// missing and where it looked, otherwise.
fn browser_exe(var: &str, names: &[&str]) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.push(PathBuf::from(DEBIAN_CHROMIUM_DIR));
    find_exe(std::env::var_os(var).map(PathBuf::from), var, names, &dirs)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `given` (the variable `var`'s value) if set, else the first file of `names` in `dirs`,
/// or why there is none.
fn find_exe(
    given: Option<PathBuf>,
    var: &str,
    names: &[&str],
    dirs: &[PathBuf],
) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{var}={}: no such file", p.display()))
        };
    }
    dirs.iter()
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            let looked: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            format!(
                "{} not found in {} (set {var}, or run scripts/browser-test.sh, which installs \
                 Debian's chromium and chromium-driver)",
                names.join(" or "),
                looked.join(":")
            )
        })
}

/// Runs by default (no browser needed): the binaries are found on `PATH` or in Debian's
/// directory, and a missing one is named.
#[test]
fn the_browser_binaries_are_found_where_debian_puts_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (bin, lib) = (tmp.path().join("bin"), tmp.path().join("lib-chromium"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(bin.join("chromium"), "").unwrap();
    std::fs::write(lib.join("chromedriver"), "").unwrap();
    let dirs = [bin.clone(), lib.clone()];
    let driver = find_exe(None, "KALAH_CHROMEDRIVER", &["chromedriver"], &dirs);
    assert_eq!(driver, Ok(lib.join("chromedriver")));
    let browser = find_exe(
        None,
        "KALAH_CHROMIUM",
        &["chromium", "chromium-browser"],
        &dirs,
    );
    assert_eq!(browser, Ok(bin.join("chromium")));
    // The variable wins; a variable naming no file is an error, not a search elsewhere.
    let given = Some(bin.join("chromium"));
    assert_eq!(
        find_exe(given.clone(), "KALAH_CHROMIUM", &["x"], &[]),
        Ok(bin.join("chromium"))
    );
    let e = find_exe(
        Some(tmp.path().join("nope")),
        "KALAH_CHROMIUM",
        &["chromium"],
        &dirs,
    );
    assert!(e.unwrap_err().starts_with("KALAH_CHROMIUM="));
    let e = find_exe(
        None,
        "KALAH_CHROMEDRIVER",
        &["chromedriver"],
        std::slice::from_ref(&bin),
    )
    .unwrap_err();
    assert!(e.starts_with("chromedriver not found in "), "{e}");
    assert!(e.contains(&bin.display().to_string()), "{e}");
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    l.local_addr().unwrap().port()
}

fn pairs(v: &Value) -> Vec<(String, i64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_i64().unwrap()))
        .collect()
}

/// Standard base64 (the screenshot).
fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c) << (18 - 6 * i);
        }
        let k = chunk.len() - 1;
        out.extend_from_slice(&n.to_be_bytes()[1..1 + k]);
    }
    out
}

#[test]
#[ignore = "opt-in, in a browser: scripts/browser-test.sh"]
fn the_explorer_in_a_browser() {
    let db = std::env::var("KALAH_BROWSER_DB")
        .expect("KALAH_BROWSER_DB: the 12-seed database of Kalah(6,4) (scripts/browser-test.sh)");
    let shot = std::env::var("KALAH_SCREENSHOT").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../results/serve-screenshot.png"
        )
        .into()
    });
    let t0 = Instant::now();
    let lap = |what: &str| eprintln!("{:>7.1} s  {what}", t0.elapsed().as_secs_f64());
    let server = Server::start(&[
        "--db",
        &db,
        "--endgame-mb",
        "256",
        "--search-seconds",
        "1200",
        "--max-searches",
        "2",
    ]);
    let browser = Browser::start();
    lap("server and browser started");

    // Play against perfect play, on a small board: North answers with a best move.
    browser.goto(&server.url("/?pits=3&seeds=3&computer=B"));
    browser.values("Kalah(3,3)'s values");
    browser.click(".pit[data-pit=A3]");
    browser.wait(
        "the computer's answer",
        Duration::from_secs(60),
        "return document.querySelectorAll('#line .mv').length === 3 \
           && document.getElementById('status').dataset.state === 'exact'",
    );
    let line =
        browser.js("return [...document.querySelectorAll('#line .mv')].map(s => s.textContent)");
    let answer = line[2].as_str().unwrap();
    assert!(answer.starts_with('B'), "{line}");
    let after: Value = serde_json::from_str(
        kalah(&["play", "--json", "--pits", "3", "--seeds", "3", "A3"]).trim(),
    )
    .unwrap();
    let (_, best) = server.get(&format!(
        "/api/moves?pits=3&seeds=3&position={}",
        enc(after["position"].as_str().unwrap())
    ));
    let best_value = best["value"].as_i64().unwrap();
    let answered = best["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == answer)
        .unwrap();
    assert_eq!(
        answered["value"].as_i64().unwrap(),
        best_value,
        "a best move"
    );

    // The pie rule: after the first turn the second player may swap seats.
    browser.goto(&server.url("/?pits=3&seeds=3&pie=1"));
    browser.values("Kalah(3,3) with the pie rule");
    assert_eq!(
        browser.js("return document.getElementById('swap-box').hidden"),
        true
    );
    browser.click(".pit[data-pit=A3]");
    browser.wait(
        "the swap button",
        Duration::from_secs(60),
        "return !document.getElementById('swap-box').hidden",
    );
    browser.click("#swap");
    browser.wait(
        "the swap",
        Duration::from_secs(30),
        "return location.search.includes('swap=1') \
           && document.getElementById('seat-north').textContent.includes('player 1')",
    );
    lap("computer and pie rule on Kalah(3,3)");

    // The start of Kalah(6,4): the six moves with kalah moves's values, on the list and
    // on the pits.
    browser.goto(&server.url("/?pits=6&seeds=4"));
    // The page's search runs while `kalah moves` computes the same values.
    // The values the page must show: `kalah moves`, with the endgame table the server
    // builds below the database (--endgame-mb 256 gives it the same 19 seeds).
    let reference: Vec<(String, i64)> = kalah(&[
        "moves",
        "--pits",
        "6",
        "--seeds",
        "4",
        "--db",
        &db,
        "--endgame",
        "18",
        "--json",
        "--quiet",
    ])
    .lines()
    .map(|l| {
        let v: Value = serde_json::from_str(l).unwrap();
        (
            v["move"].as_str().unwrap().to_string(),
            v["value"].as_i64().unwrap(),
        )
    })
    .collect();
    assert_eq!(reference.len(), 6);
    lap("kalah moves");
    let after_a3: Value = serde_json::from_str(kalah(&["play", "--json", "A3"]).trim()).unwrap();
    let after_a3 = after_a3["position"].as_str().unwrap().to_string();

    let shown = browser.values("the start's values");
    lap("start position's values shown");
    assert_eq!(shown, reference);
    let badges = pairs(
        &browser.js("return [...document.querySelectorAll('.pit[data-pit^=A]')]\
         .map(p => [p.dataset.pit, Number(p.querySelector('.value').textContent)])"),
    );
    for (pit, v) in &badges {
        let want = reference
            .iter()
            .find(|(m, _)| m.starts_with(pit.as_str()))
            .unwrap();
        assert_eq!(*v, want.1, "{pit}");
    }
    // The board as the players see it: North's row on top, A1..A6 and B6..B1 left to
    // right, North's store on the left and South's on the right.
    let layout = browser.js(
        "const r = s => document.querySelector(s).getBoundingClientRect();\
         const a = [1,2,3,4,5,6].map(i => r('.pit[data-pit=A' + i + ']'));\
         const b = [6,5,4,3,2,1].map(i => r('.pit[data-pit=B' + i + ']'));\
         const inc = xs => xs.every((x, i) => i === 0 || xs[i-1].x < x.x);\
         return inc(a) && inc(b) && b[0].y < a[0].y && Math.abs(a[0].x - b[0].x) < 2\
           && r('#store-B').x < a[0].x && r('#store-A').x > a[5].x;",
    );
    assert_eq!(layout, Value::Bool(true), "board layout");
    assert_eq!(browser.position(), "4,4,4,4,4,4/0/4,4,4,4,4,4/0/A");

    // Click A3: a free move, South moves again from the new position.
    browser.click(".pit[data-pit=A3]");
    browser.wait(
        "the position after A3",
        Duration::from_secs(30),
        &format!("return document.getElementById('position').value === '{after_a3}'"),
    );
    let note = browser.js("return document.getElementById('note').textContent");
    assert!(note.as_str().unwrap().contains("free move"), "{note}");
    let turn = browser.js("return document.getElementById('turn').textContent");
    assert!(
        turn.as_str().unwrap().starts_with("South (A) to move"),
        "{turn}"
    );
    let standard = browser.values("the values after A3");
    lap("values after A3 shown");

    // Empty capture: other values for the same position, the API's.
    browser.click("#capture option[value=empty]");
    browser.wait(
        "empty capture in the URL",
        Duration::from_secs(30),
        "return location.search.includes('capture=empty')",
    );
    let empty = browser.values("the values under empty capture");
    lap("values under empty capture shown");
    assert_eq!(browser.position(), after_a3);
    assert_ne!(empty, standard, "empty capture changes the values");
    let (_, api) = server.get(&format!(
        "/api/moves?capture=empty&position={}",
        enc(&after_a3)
    ));
    assert_eq!(empty, api_moves(&api));
    let shared = browser.js("return document.getElementById('share').href");
    let shared = shared.as_str().unwrap().to_string();

    // Back to the start of the line.
    browser.click("#back");
    browser.wait(
        "the start again",
        Duration::from_secs(30),
        "return document.getElementById('position').value === '4,4,4,4,4,4/0/4,4,4,4,4,4/0/A'",
    );
    assert!(browser.js("return document.getElementById('forward').disabled") == Value::Bool(false));

    // The shared link opens the same position, rules and values (from the cache).
    browser.goto(&shared);
    let again = browser.values("the shared position's values");
    assert_eq!(browser.position(), after_a3);
    assert_eq!(
        browser.js("return document.getElementById('capture').value"),
        "empty"
    );
    assert_eq!(again, empty);
    lap("shared link reopened");
    browser.screenshot(std::path::Path::new(&shot));
    eprintln!("screenshot: {shot}");

    lap("done");
}

/// A link to a position of another game than the server's, and a link the server refuses.
/// Needs no database: Kalah(4,3) is searched in a moment.
#[test]
#[ignore = "opt-in, in a browser: scripts/browser-test.sh"]
fn a_link_opens_its_own_position_in_a_browser() {
    let server = Server::start(&["--search-seconds", "60", "--threads", "1"]);
    let browser = Browser::start();
    let value = |id: &str| browser.js(&format!("return document.getElementById('{id}').value"));

    // The start of Kalah(4,3) on a server of Kalah(6,4): that position, that game, the
    // API's values.
    let k43 = "3,3,3,3/0/3,3,3,3/0/A";
    browser.goto(&server.url(&format!("/?position={}", enc(k43))));
    let shown = browser.values("Kalah(4,3)'s values");
    assert_eq!(browser.position(), k43);
    assert_eq!((value("pits"), value("seeds")), (json!("4"), json!("3")));
    assert_eq!(
        browser.js("return document.querySelectorAll('.pit[data-pit^=A]').length"),
        4
    );
    let (_, api) = server.get(&format!("/api/moves?position={}", enc(k43)));
    let want = api_moves(&api);
    assert_eq!(shown, want);
    assert!(
        browser
            .js("return location.search")
            .as_str()
            .unwrap()
            .contains("position="),
        "the link keeps the position"
    );

    // A link the server refuses (its own seeds are not the position's): its reason, and no
    // board at all rather than another position.
    browser.goto(&server.url(&format!("/?seeds=4&position={}", enc(k43))));
    browser.wait(
        "the refusal",
        Duration::from_secs(30),
        "return document.getElementById('status').dataset.state === 'error'",
    );
    let error = browser.js("return document.getElementById('error').textContent");
    assert!(
        error.as_str().unwrap().contains("holds 24 seeds"),
        "{error}"
    );
    assert_eq!(
        browser.js("return document.querySelectorAll('.pit').length"),
        0
    );
    assert_eq!(
        browser.js("return document.querySelectorAll('#moves tbody tr').length"),
        0
    );
    assert_eq!(browser.position(), k43);
}

/// The rows of the page's moves table: (move, exact, value or lower bound, upper bound).
fn rows(browser: &Browser) -> Vec<(String, bool, i64, i64)> {
    let v = browser.js(
        "return [...document.querySelectorAll('#moves tbody tr')].map(tr => [tr.dataset.move,\
           tr.dataset.exact === 'true',\
           Number(tr.dataset.exact === 'true' ? tr.dataset.value : tr.dataset.atLeast),\
           Number(tr.dataset.exact === 'true' ? tr.dataset.value : tr.dataset.atMost)])",
    );
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_string(),
                r[1].as_bool().unwrap(),
                r[2].as_i64().unwrap(),
                r[3].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The same rows from an `/api/moves` answer.
fn api_rows(v: &Value) -> Vec<(String, bool, i64, i64)> {
    v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let exact = m["exact"].as_bool().unwrap();
            let (lo, hi) = if exact {
                (m["value"].as_i64().unwrap(), m["value"].as_i64().unwrap())
            } else {
                (
                    m["margin_at_least"].as_i64().unwrap(),
                    m["margin_at_most"].as_i64().unwrap(),
                )
            };
            (m["move"].as_str().unwrap().to_string(), exact, lo, hi)
        })
        .collect()
}

/// A margin as the page writes it (`signed` in page.js): a sign above 0 only, so a draw
/// reads "0".
fn signed(v: i64) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

/// The start of Kalah(6,6) from the committed proofs: their values, and each first move
/// exact or labelled as bounds, as the API gives them (`tools/tests/serve.rs` ties those
/// to `kalah prove --status`).
#[test]
#[ignore = "opt-in, in a browser: scripts/browser-test.sh"]
fn the_kalah66_start_from_the_proofs_in_a_browser() {
    // Any search started by mistake stops at once; the answers must not need one.
    let server = Server::start(&NO_SEARCH);
    let browser = Browser::start();
    for capture in ["standard", "empty"] {
        browser.goto(&server.url(&format!("/?pits=6&seeds=6&capture={capture}")));
        browser.wait(
            "the proof's answer",
            Duration::from_secs(30),
            "return document.getElementById('status').dataset.state === 'proved'",
        );
        let (_, api) = server.get(&format!("/api/moves?pits=6&seeds=6&capture={capture}"));
        assert_eq!(api["status"], "proved", "{api}");
        let want = api_rows(&api);
        assert_eq!(rows(&browser), want, "{capture}");
        let v = api["value"].as_i64().unwrap();
        let text = browser.js("return document.getElementById('value').textContent");
        assert!(
            text.as_str()
                .unwrap()
                .contains(&format!("{}, proved", signed(v))),
            "{text}"
        );
        // Each row says what it is: a bounded move's margin is a range marked "bounds";
        // on the pits too.
        for (i, (m, exact, lo, hi)) in want.iter().enumerate() {
            let row = browser.js(&format!(
                "return document.querySelectorAll('#moves tbody tr')[{i}].textContent"
            ));
            let row = row.as_str().unwrap();
            let pit = m.split(['+', 'x', '#']).next().unwrap();
            let badge = browser.js(&format!(
                "const b = document.querySelector('.pit[data-pit={pit}] .value');\
                 return [b.textContent, b.classList.contains('bounds')]"
            ));
            if *exact {
                assert!(!row.contains("bounds"), "{row}");
                assert_eq!(badge, json!([signed(*lo), false]), "{m}");
                // An exact value whose second answers are not complete says so.
                let certified = api["moves"][i]["certified"] == true;
                assert_eq!(row.contains("not yet certified"), !certified, "{row}");
            } else {
                assert!(
                    row.contains("bounds")
                        && row.contains(&format!("{} to {}", signed(*lo), signed(*hi))),
                    "{row}"
                );
                assert_eq!(
                    badge,
                    json!([format!("{}\u{2026}{}", signed(*lo), signed(*hi)), true]),
                    "{m}"
                );
            }
        }
        assert!(want.iter().any(|r| r.1), "an exact move: {want:?}");
    }
}
