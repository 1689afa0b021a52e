//! The transcripts of `README.md` and `docs/*.md` against the program, so that a sample
//! output cannot drift from what `kalah` prints. The rules of a transcript (a fenced
//! block marked `console`) are written in `docs/README.md`, "Sample outputs are tested":
//! each `$ kalah ARGS` is run in a new empty directory, each `$ curl -s 'URL'` asked of a
//! `kalah serve` started here, and standard output is compared line for line, every
//! decimal number and every rate in nodes/s matching any other (timings), and `...` any
//! text.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{get_raw, Server};

const KALAH: &str = env!("CARGO_BIN_EXE_kalah");

/// One `$` line of a transcript and the lines it must print.
struct Sample {
    file: PathBuf,
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The Markdown files whose transcripts are checked.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// Every command of every `console` block of `text`.
fn samples(file: &Path, text: &str) -> Vec<Sample> {
    let mut out: Vec<Sample> = Vec::new();
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            inside = !inside && info.trim() == "console";
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Sample {
                file: file.to_path_buf(),
                line: i + 1,
                command: cmd.to_string(),
                expected: Vec::new(),
            });
        } else {
            let s = out.last_mut().unwrap_or_else(|| {
                panic!("{}:{}: output before any command", file.display(), i + 1)
            });
            s.expected.push(line.to_string());
        }
    }
    // A blank line before the next command or the block's end only spaces the text.
    for s in &mut out {
        while s.expected.last().is_some_and(|l| l.is_empty()) {
            s.expected.pop();
        }
    }
    out
}

/// `command` split into words as a shell would: spaces separate, quotes group.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quote, mut any) = (None, false);
    for c in command.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (_, c) => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// `s` with every decimal number (digits, a point, digits) written `#.#`, and every
/// whole number of nodes a second (`N nodes/s`) written `#`: the timings.
fn mask_decimals(s: &str) -> String {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j + 1 < b.len() && b[j] == '.' && b[j + 1].is_ascii_digit() {
                let mut k = j + 1;
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                out.push_str("#.#");
                i = k;
                continue;
            }
            // A whole number of nodes a second is a rate: a timing too.
            let rate: Vec<char> = " nodes/s".chars().collect();
            if b[j..].starts_with(&rate) {
                out.push('#');
            } else {
                out.extend(&b[i..j]);
            }
            i = j;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// Whether the line `got` matches the expected line `want`: decimals masked on both
/// sides, and each `...` in `want` standing for any text.
fn matches(want: &str, got: &str) -> bool {
    let (want, got) = (mask_decimals(want), mask_decimals(got));
    let parts: Vec<&str> = want.split("...").collect();
    if parts.len() == 1 {
        return want == got;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !got.starts_with(first) || !got[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &got[first.len()..got.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    true
}

/// What the sample's command prints on standard output, or why it could not run.
fn run(sample: &Sample, server: &mut Option<Server>) -> Result<String, String> {
    let w = words(&sample.command);
    match w.first().map(String::as_str) {
        Some("kalah") => {
            let dir = tempfile::tempdir().unwrap();
            let out = Command::new(KALAH)
                .args(&w[1..])
                .current_dir(dir.path())
                .output()
                .map_err(|e| e.to_string())?;
            if !out.status.success() {
                return Err(format!(
                    "exit status {:?}: {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        }
        Some("curl") => {
            let url = w
                .iter()
                .find(|a| a.starts_with("http://"))
                .ok_or("curl without a URL")?;
            let path = url
                .strip_prefix("http://127.0.0.1:8080")
                .ok_or("the URL of a sample is http://127.0.0.1:8080/...")?;
            let port = server.get_or_insert_with(|| Server::start(&[])).port;
            let (status, body) = get_raw(port, path);
            if status >= 400 {
                return Err(format!("HTTP {status}: {body}"));
            }
            Ok(body + "\n")
        }
        _ => Err("a sample command is `kalah ...` or `curl -s URL`".to_string()),
    }
}

/// Why `got` does not match the sample, if it does not.
fn differs(sample: &Sample, got: &str) -> Option<String> {
    let got: Vec<&str> = got.lines().collect();
    let same = got.len() == sample.expected.len()
        && sample.expected.iter().zip(&got).all(|(w, g)| matches(w, g));
    (!same).then(|| {
        format!(
            "expected:\n{}\ngot:\n{}",
            sample.expected.join("\n"),
            got.join("\n")
        )
    })
}

#[test]
fn every_transcript_in_the_readme_and_docs_prints_what_it_shows() {
    let mut server = None;
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut in_readme = 0;
    for (i, file) in documents().into_iter().enumerate() {
        let text = std::fs::read_to_string(&file).unwrap();
        for s in samples(&file, &text) {
            checked += 1;
            // The first document is the README.
            if i == 0 {
                in_readme += 1;
            }
            let problem = match run(&s, &mut server) {
                Ok(got) => differs(&s, &got),
                Err(e) => Some(e),
            };
            if let Some(p) = problem {
                failures.push(format!(
                    "{}:{}: $ {}\n{p}",
                    s.file.display(),
                    s.line,
                    s.command
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The README's transcript is found, and so are those of docs/.
    assert!(in_readme >= 1, "no transcript in README.md");
    assert!(checked >= 4, "only {checked} transcripts found");
}

#[test]
fn transcripts_mask_timings_and_match_ellipses() {
    assert_eq!(
        mask_decimals("0.5s of search (12.25 CPU seconds), 669954 nodes, Kalah(6,4)"),
        "#.#s of search (#.# CPU seconds), 669954 nodes, Kalah(6,4)"
    );
    assert_eq!(
        mask_decimals("3343  (62660 nodes/s; 0"),
        "3343  (# nodes/s; 0"
    );
    assert!(matches("work: 10 nodes, 0.5s", "work: 10 nodes, 3.75s"));
    assert!(!matches("work: 10 nodes, 0.5s", "work: 11 nodes, 0.5s"));
    assert!(matches(r#"{"a":1,...,"z":2}"#, r#"{"a":1,"b":[3],"z":2}"#));
    assert!(!matches(r#"{"a":1,...,"z":2}"#, r#"{"a":2,"b":[3],"z":2}"#));
    assert!(matches("x...y...z", "x1y2z"));
    assert!(!matches("x...y...z", "x1z2y"));
    assert_eq!(
        words(r#"kalah play --pits 2 "A2 A1" 'a b'"#),
        ["kalah", "play", "--pits", "2", "A2 A1", "a b"]
    );
    let text =
        "text\n```console\n$ kalah show\nline 1\n\n$ kalah bench\n```\n```\n$ not run\n```\n";
    let s = samples(Path::new("x.md"), text);
    assert_eq!(s.len(), 2);
    assert_eq!((s[0].line, s[0].command.as_str()), (3, "kalah show"));
    assert_eq!(s[0].expected, ["line 1"]);
    assert!(s[1].expected.is_empty());
}
