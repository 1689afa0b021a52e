//! What several test binaries share: a `kalah serve` child process on a free port of
//! 127.0.0.1 and a plain HTTP/1.1 client for it (std only), and small databases
//! ([`db`]).

#![allow(dead_code)]

pub mod db;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// `kalah ARGS`, which must succeed: its standard output.
pub fn kalah_stdout(args: &[&str]) -> String {
    let out = Command::new(assert_cmd::cargo::cargo_bin("kalah"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kalah {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Asserts that `text` holds each of `parts`, showing the whole text where one is missing.
#[track_caller]
pub fn assert_has(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part:?} is missing from:\n{text}");
    }
}

/// A running server, stopped when dropped.
pub struct Server {
    child: Child,
    pub port: u16,
}

impl Server {
    /// `kalah serve --addr 127.0.0.1:0 ARGS`, once it listens.
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("kalah"))
            .arg("serve")
            .args(["--addr", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start kalah serve");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped stdout");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the server's first line");
        // "kalah serve: listening on http://127.0.0.1:PORT/ (Ctrl-C stops)"
        let port = line
            .split("127.0.0.1:")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Server { child, port }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// `GET path` (query included, already encoded): the status and the body.
    pub fn get_raw(&self, path: &str) -> (u16, String) {
        get_raw(self.port, path)
    }

    /// `GET path` answered with JSON: the status and the parsed body.
    pub fn get(&self, path: &str) -> (u16, serde_json::Value) {
        let (status, body) = self.get_raw(path);
        let v = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("GET {path}: {status} {body:?} is not JSON: {e}"));
        (status, v)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The moves of an `/api/moves` answer, best first.
pub fn api_moves(v: &serde_json::Value) -> Vec<(String, i64)> {
    v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["value"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// Percent-encode a query value.
pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One HTTP/1.1 request (`Connection: close`) to 127.0.0.1:`port`: the status and body.
pub fn request(port: u16, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(600))).unwrap();
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("send");
    // Read up to the end of the headers, then the body their length says (a server may
    // keep the connection open after it).
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let end = loop {
        if let Some(i) = find(&raw, b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut buf).expect("read the answer");
        assert!(n > 0, "connection closed before the headers: {raw:?}");
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    let mut body = raw[end + 4..].to_vec();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let chunked = head.contains("transfer-encoding: chunked");
    loop {
        let done = match length {
            Some(n) => body.len() >= n,
            None if chunked => body.ends_with(b"0\r\n\r\n"),
            None => false,
        };
        if done {
            break;
        }
        let n = s.read(&mut buf).expect("read the body");
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    let body = if chunked { dechunk(&text) } else { text };
    (status, body)
}

pub fn get_raw(port: u16, path: &str) -> (u16, String) {
    request(port, "GET", path, None)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The body of a chunked transfer.
fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// `kalah serve` options under which every search stops at once (no database, no endgame
/// table, a second's budget): what such a server answers in time is not a search's.
pub const NO_SEARCH: [&str; 6] = [
    "--search-seconds",
    "1",
    "--endgame-mb",
    "0",
    "--threads",
    "1",
];

/// Whether `python3` runs here; where it does not, says which check is skipped.
pub fn python_present(skipped: &str) -> bool {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: python3 not found; {skipped} is not checked");
    }
    ok
}

/// `kalah ARGS` must be refused as a usage error: exit status 2, and stderr containing
/// `says`.
pub fn refused(args: &[&str], says: &str) {
    let out = assert_cmd::Command::cargo_bin("kalah")
        .unwrap()
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
}
