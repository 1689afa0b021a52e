//! The lines of a text input that is not trusted (standard input of a batch command): read
//! one at a time, numbered, and each bounded in length, so that a line without an end
//! cannot fill the memory.

use std::io::{BufRead, Read};

/// The lines of `input`, each at most `max` bytes without its line end (`\n` or `\r\n`).
pub struct Lines<R> {
    input: R,
    max: usize,
    buf: Vec<u8>,
    /// The number of the line read last, from 1.
    number: u64,
}

impl<R: BufRead> Lines<R> {
    pub fn new(input: R, max: usize) -> Lines<R> {
        Lines {
            input,
            max,
            buf: Vec::new(),
            number: 0,
        }
    }

    /// The next line and its number (from 1), or `None` at the end of the input. A line
    /// that is not UTF-8, or is longer than `max` bytes (read to its end and passed over),
    /// is `Err` with what is wrong with it; the lines after it are read as usual.
    pub fn next_line(&mut self) -> std::io::Result<Option<(u64, Result<&str, String>)>> {
        self.buf.clear();
        // A line of `max` bytes comes with up to two bytes of line end.
        let limit = self.max as u64 + 2;
        let n = Read::take(&mut self.input, limit).read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        let ended = self.buf.last() == Some(&b'\n');
        if !ended && n as u64 == limit {
            self.skip_line()?;
        }
        let line = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let text = if line.len() > self.max {
            Err(format!("longer than {} bytes", self.max))
        } else {
            std::str::from_utf8(line).map_err(|_| "not UTF-8 text".to_string())
        };
        Ok(Some((self.number, text)))
    }

    /// Reads to the end of the current line, keeping none of it.
    fn skip_line(&mut self) -> std::io::Result<()> {
        loop {
            let chunk = self.input.fill_buf()?;
            if chunk.is_empty() {
                return Ok(());
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.input.consume(i + 1);
                    return Ok(());
                }
                None => {
                    let n = chunk.len();
                    self.input.consume(n);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `text` read with lines of at most `max` bytes, a refused one as
    /// `!` and why.
    fn all(text: &[u8], max: usize) -> Vec<(u64, String)> {
        let mut lines = Lines::new(text, max);
        let mut out = Vec::new();
        while let Some((n, line)) = lines.next_line().unwrap() {
            out.push((n, line.map_or_else(|why| format!("!{why}"), str::to_string)));
        }
        out
    }

    #[test]
    fn lines_are_numbered_and_refused_alone() {
        let long = format!("{}\nok\n", "x".repeat(10_000));
        let cases: [(&[u8], &[&str]); 5] = [
            (b"", &[]),
            // Line ends go, blank lines stay (and count).
            (b"a\r\n\nbc\nd", &["a", "", "bc", "d"]),
            // A long line is read to its end and passed over.
            (long.as_bytes(), &["!longer than 8 bytes", "ok"]),
            // Exactly the limit, with either line end, is a line.
            (
                b"12345678\r\n12345678\n123456789",
                &["12345678", "12345678", "!longer than 8 bytes"],
            ),
            (b"\xff\xfe\nok", &["!not UTF-8 text", "ok"]),
        ];
        for (text, want) in cases {
            let want: Vec<(u64, String)> = (1..).zip(want.iter().map(|s| s.to_string())).collect();
            assert_eq!(all(text, 8), want, "{:?}", String::from_utf8_lossy(text));
        }
    }
}
