//! The multipart walk ([`super::mime`]) against mail-parser: the same output for
//! the test messages and for thousands of mutations of them.

use super::mbox::{self, Unquoted};
use super::message::{parser, scan_unquoted};
use super::{Scanned, mime};
use urlsift_core::Extractor;

fn both(msg: &[u8]) -> (String, String, bool) {
    let ex = Extractor::new();
    let parser = parser();
    let uq = Unquoted::borrowed(msg);
    let run = |fast| {
        let mut s = Scanned::default();
        scan_unquoted(&ex, &parser, &uq, 7, 1, &mut s, fast, None);
        format!("{s:?}")
    };
    (run(true), run(false), mime::walk(msg).is_some())
}

/// Test messages: the files under tests/data/mail, and the .eml files
/// under `URLSIFT_MAIL_DIFF_DIR` when set (mail-parser's resources/eml).
fn messages() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/mail"
    ))];
    if let Ok(d) = std::env::var("URLSIFT_MAIL_DIFF_DIR") {
        dirs.push(d.into());
    }
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if let Ok(data) = std::fs::read(&p) {
                for r in mbox::split(&data) {
                    out.push(data[r].to_vec());
                }
            }
        }
    }
    out.push(
        b"Message-ID: <m@x>\r\nContent-Type: multipart/mixed; boundary=\"out\"\r\n\r\npre\r\n--out\r\nContent-Type: multipart/alternative;\r\n boundary=in\r\n\r\n--in\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nsee http://a.example/x=3Dy=\r\nz caf=E9\r\n--in\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\nPGEgaHJlZj0iaHR0cDovL2IuZXhhbXBsZS8/YT0xJmFtcDtiPTIiPng8L2E+\r\n--in--\r\n--out\r\nContent-Type: application/pdf\r\n\r\nJVBER\r\n--out--\r\n"
            .to_vec(),
    );
    out.push(
        b"Message-ID: <p@x>\nContent-Type: multipart/mixed; boundary=out\n\npreamble http://pre.example/\n--out\nContent-Type: multipart/alternative; boundary=in\n\nhttp://in-pre.example/\n--in\n\nplain\n--in--\nhttp://in-epi.example/\n--out\nContent-Type: image/png\n\nPNG\n--out--\nepilogue http://epi.example/\n"
            .to_vec(),
    );
    // A delivery report: its status and returned headers are read as text.
    out.push(
        b"Message-ID: <r@x>\nContent-Type: multipart/report; report-type=delivery-status; boundary=r\n\n--r\nContent-Type: text/plain\n\nnot delivered\n--r\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example\n\nDiagnostic-Code: smtp; 550 see\n    https://help.example/550\n--r\nContent-Type: message/rfc822-headers\n\nList-Unsubscribe: <https://list.example/u>\n--r\nContent-Type: message/cpim\n\nFrom: <sip:a@example.com>\n--r--\n"
            .to_vec(),
    );
    out
}

/// A small deterministic generator (xorshift).
pub(super) struct Rng(pub(super) u64);
impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, m: &[u8]) -> Vec<u8> {
    const BITS: &[&[u8]] = &[
        b"--",
        b"\n",
        b"\r\n",
        b" ",
        b"\t",
        b"-",
        b";",
        b"\"",
        b"=?",
        b":",
        b"\n\n",
        b"Content-Type: text/plain\n",
        b"Content-Type: multipart/mixed; boundary=b\n",
        b"--b\n",
        b"--b--\n",
        b"Message-ID: <z@y>\n",
        b"message/rfc822",
        b"\r",
    ];
    let mut v = m.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 => {
                let n = rng.below(8).min(v.len() - at);
                v.drain(at..at + n);
            }
            1 | 2 => {
                let b = BITS[rng.below(BITS.len())];
                v.splice(at..at, b.iter().copied());
            }
            3 => v.truncate(at),
            _ => {
                // Copy a line from elsewhere to here.
                let from = rng.below(v.len() + 1);
                let end = memchr::memchr(b'\n', &v[from..]).map_or(v.len(), |n| from + n + 1);
                let line = v[from..end].to_vec();
                v.splice(at..at, line);
            }
        }
    }
    v
}

#[test]
#[allow(clippy::print_stderr)] // a test: its summary goes to the test log
fn walk_equals_mail_parser() {
    let msgs = messages();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let rounds: usize = std::env::var("URLSIFT_MAIL_DIFF_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(300);
    let (mut walked, mut tried) = (0, 0);
    for m in &msgs {
        let (fast, slow, w) = both(m);
        assert_eq!(fast, slow, "{}", String::from_utf8_lossy(m));
        if !w {
            continue;
        }
        walked += 1;
        for _ in 0..rounds {
            let v = mutate(&mut rng, m);
            let (fast, slow, w) = both(&v);
            tried += usize::from(w);
            assert_eq!(fast, slow, "mutant:\n{}", String::from_utf8_lossy(&v));
        }
    }
    eprintln!(
        "{} messages, {walked} walked, {tried} mutants walked",
        msgs.len()
    );
    assert!(walked >= 3, "{walked} messages walked");
    assert!(tried > 300, "{tried} mutants walked");
}
