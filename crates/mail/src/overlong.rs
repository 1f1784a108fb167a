//! Messages longer than the cap: read from a stream, a piece at a time, and
//! from a whole buffer, they give the same URLs, places, problems and
//! counts, for every cap, block size and pause.

use std::io::{self, Read};

use super::*;

type Seen = (Vec<(MailWhere, u64, String)>, Vec<Problem>, MailStats);

fn whole(data: &[u8], cap: usize) -> Seen {
    let (mut urls, mut problems) = (Vec::new(), Vec::new());
    let stats = scan_archive_capped(
        &Extractor::new(),
        data,
        cap,
        (
            |b: &MailBatch<'_>| {
                let mut v = Vec::new();
                b.each(|w, l, m| v.push((w.clone(), l, m.url_str().into_owned())));
                v
            },
            |v, _: &MailBatch<'_>| {
                urls.extend(v);
                true
            },
            |p: &Problem| problems.push(p.clone()),
        ),
    );
    (urls, problems, stats)
}

/// A reader of `data` in pieces of `piece` bytes, that pauses (fails a
/// read with `WouldBlock`) before every piece when `pauses`.
struct Pieces<'a> {
    data: &'a [u8],
    piece: usize,
    at: usize,
    pauses: bool,
    paused: bool,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pauses && self.at < self.data.len() && !std::mem::replace(&mut self.paused, true) {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        self.paused = false;
        let n = self.piece.min(buf.len()).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn streamed(data: &[u8], cap: usize, block: usize, piece: usize, pauses: bool) -> Seen {
    let (mut urls, mut problems) = (Vec::new(), Vec::new());
    let mut stats = MailStats::default();
    let r = Pieces {
        data,
        piece,
        at: 0,
        pauses,
        paused: false,
    };
    read_archive(
        &Extractor::new(),
        r,
        (block, cap),
        (
            |b: &MailBatch<'_>| {
                let mut v = Vec::new();
                b.each(|w, l, m| v.push((w.clone(), l, m.url_str().into_owned())));
                v
            },
            |v, _: &MailBatch<'_>| {
                urls.extend(v);
                true
            },
            |p: &Problem| problems.push(p.clone()),
            || true,
        ),
        &mut stats,
    )
    .unwrap();
    (urls, problems, stats)
}

/// Text with URLs on most lines, `From ` lines that start no message
/// (no blank line before, no header after), and a long line.
fn filler(n: usize, seed: usize) -> Vec<u8> {
    let mut v = Vec::new();
    let mut i = seed;
    while v.len() < n {
        i += 1;
        match i % 7 {
            0 => v.extend_from_slice(b"From here on, text.\n"),
            1 => v.extend_from_slice(format!("see http://h{i}.example/p?q={i} ok\n").as_bytes()),
            2 => v.extend_from_slice(format!("<http://w{i}.example/a\n  /b> wrapped\n").as_bytes()),
            3 => v.extend_from_slice(b">From quoted\r\n"),
            4 => v.extend_from_slice(&b"x".repeat(i % 300)),
            5 => v.extend_from_slice(
                format!("www.v{i}.example, and (http://p{i}.example/(x))\n").as_bytes(),
            ),
            _ => v.extend_from_slice(b"\n"),
        }
    }
    v
}

fn inputs() -> Vec<Vec<u8>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/mail/own");
    let archive = std::fs::read(format!("{dir}/archive.mbox")).unwrap();
    let from = b"From someone@example.org Mon Jan  1 00:00:00 2024\n";
    let mut out = Vec::new();
    // An mbox whose messages are long, some with a message start close
    // after the cap, some whose rest ends with another long message.
    let mut mbox = Vec::new();
    for (k, len) in [3000usize, 10, 9000, 400, 25_000, 5000]
        .into_iter()
        .enumerate()
    {
        mbox.extend_from_slice(from);
        mbox.extend_from_slice(
            format!("Subject: m{k}\nMessage-ID: <m{k}@x>\n\nhttp://head{k}.example/\n").as_bytes(),
        );
        mbox.extend_from_slice(&filler(len, k * 31));
        mbox.extend_from_slice(b"\n");
    }
    mbox.extend_from_slice(&archive);
    out.push(mbox.clone());
    // After blank lines.
    let mut led = b"\n\r\n \t\n".to_vec();
    led.extend_from_slice(&mbox);
    out.push(led);
    // The same after the test archive, and with CRLF line ends.
    let mut after = archive.clone();
    after.extend_from_slice(&mbox);
    out.push(after);
    out.push(
        mbox.iter()
            .flat_map(|&b| {
                if b == b'\n' {
                    vec![b'\r', b'\n']
                } else {
                    vec![b]
                }
            })
            .collect(),
    );
    // One long message, not an mbox: plain, and multipart with base64.
    let mut one = b"Subject: one\nMessage-ID: <one@x>\n\n".to_vec();
    one.extend_from_slice(&filler(30_000, 5));
    out.push(one);
    let mut multi = b"Message-ID: <mp@x>\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n".to_vec();
    for i in 0..400 {
        multi.extend_from_slice(b"aHR0cDovL2I2NC5leGFtcGxlL3BhdGgvdG8vcGFnZSBhbmQgbW9yZSB0ZXh0\n");
        if i % 50 == 0 {
            multi.extend_from_slice(
                b"--b\nContent-Type: text/html\n\n<a href=\"http://h.example/\">x</a>\n",
            );
        }
    }
    multi.extend_from_slice(b"--b--\n");
    multi.extend_from_slice(&filler(4000, 9));
    out.push(multi);
    // Text shaped like a header block (a package list): one message.
    let mut fields = Vec::new();
    for i in 0..600 {
        fields.extend_from_slice(
            format!("Package: p{i}\nHomepage: https://p{i}.example.org/\nDescription: see http://d{i}.example/\n\n").as_bytes(),
        );
    }
    out.push(fields);
    // Messages of about each cap's length, each followed by a `From ` line
    // after no blank line (so it starts a message only by the header-like
    // line after it).
    let mut near = Vec::new();
    for len in (40..90).chain(680..720).chain((7990..8010).step_by(3)) {
        near.extend_from_slice(b"From x@example.org Mon Jan  1 00:00:00 2024\nSubject: s\n\n");
        let mut body = Vec::new();
        while body.len() + 12 < len {
            body.extend_from_slice(b"http://e.example/\n");
        }
        body.truncate(len - 12);
        body.extend_from_slice(b"y\n");
        near.extend_from_slice(&body);
    }
    out.push(near);
    // A line with no line end longer than the cap.
    let mut flat = b"Subject: flat\n\n".to_vec();
    for i in 0..2000 {
        flat.extend_from_slice(format!("http://f{i}.example/ ").as_bytes());
    }
    out.push(flat);
    out
}

#[test]
fn a_long_message_streamed_equals_whole() {
    for (n, data) in inputs().iter().enumerate() {
        for cap in [64, 700, 8000, 1 << 20] {
            let want = whole(data, cap);
            assert!(!want.0.is_empty(), "input {n}");
            for (block, piece, pauses) in [
                (1, 1 << 20, false),
                (100, 37, false),
                (4096, 1000, false),
                (1 << 20, 1 << 20, false),
                (1 << 20, 2000, true),
                (1 << 20, 5000, true),
                (64, 7, true),
            ] {
                // Small reads of a buffer that holds all the input, and
                // many pauses (each waits a millisecond), are slow: once.
                if ((piece < 10 || pauses && piece < 1000) && cap != 700)
                    || (block < 4096 && cap == 1 << 20)
                {
                    continue;
                }
                let got = streamed(data, cap, block, piece, pauses);
                if got != want {
                    let first = got.0.iter().zip(&want.0).position(|(a, b)| a != b);
                    panic!(
                        "input {n}, cap {cap}, block {block}, piece {piece}, pauses {pauses}: \
                         {} URLs against {}, first differing {:?}, problems {} against {}, \
                         {:?} against {:?}",
                        got.0.len(),
                        want.0.len(),
                        first.map(|i| (&got.0[i], &want.0[i])),
                        got.1.len(),
                        want.1.len(),
                        got.2,
                        want.2
                    );
                }
            }
        }
    }
}

#[test]
fn the_rest_of_a_long_message_is_one_text_part() {
    let mut msg = b"Subject: s\nMessage-ID: <id@x>\nContent-Transfer-Encoding: quoted-printable\n\nhttp://a.example/=\nb\n".to_vec();
    let head = msg.len();
    for i in 0..200 {
        msg.extend_from_slice(format!("see http://t{i}.example/p?q={i} ok\n").as_bytes());
    }
    let cap = head + 10;
    let (urls, problems, stats) = whole(&msg, cap);
    // The head is mail: the soft line break is undone.
    assert_eq!(urls[0].2, "http://a.example/b");
    assert_eq!(urls[0].0.part, 1);
    // The rest: part 2, as it is stored, its URLs those of the text rules.
    let rest_at = message::head_len(&msg, cap);
    let mut plain = Vec::new();
    Extractor::new().scan(&msg[rest_at..], 0, msg.len() - rest_at, 0, |m| {
        plain.push((m.start, m.url_str().into_owned()))
    });
    let rest: Vec<_> = urls.iter().filter(|u| u.0.part == 2).collect();
    assert!(rest.len() > 20, "{}", rest.len());
    // Pieces of `cap` bytes cut at line ends find what one scan finds.
    assert_eq!(
        rest.iter()
            .map(|u| (u.0.part_start as usize, u.2.clone()))
            .collect::<Vec<_>>(),
        plain
    );
    for u in &rest {
        assert_eq!(
            (u.0.content_type.as_str(), u.0.message_id.as_deref()),
            ("text/plain", Some("id@x"))
        );
        assert_eq!(u.0.part_offset, rest_at as u64);
    }
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].offset, rest_at as u64);
    assert!(
        problems[0].what.contains("longer than"),
        "{:?}",
        problems[0]
    );
    assert_eq!((stats.messages, stats.problem_messages), (1, 1));
    // Under the cap, nothing changes.
    let (all, problems, _) = whole(&msg, msg.len());
    assert!(problems.is_empty() && all.iter().all(|u| u.0.part == 1));
}

/// A message of `len` bytes, made as it is read: a header, then lines
/// with a URL each. Counts the bytes it gave.
struct Endless {
    at: usize,
    len: usize,
    given: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        const HEAD: &[u8] = b"Subject: long\n\n";
        const LINE: &[u8] = b"see http://u.example/a/b?c=d in this line\n";
        let n = buf.len().min(self.len - self.at);
        for (i, b) in buf[..n].iter_mut().enumerate() {
            let k = self.at + i;
            *b = match HEAD.get(k) {
                Some(&h) => h,
                None => LINE[(k - HEAD.len()) % LINE.len()],
            };
        }
        self.at += n;
        self.given
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// A stream of one long message is handed on a piece at a time: each
/// batch comes while the reader has given at most the cap and a few blocks
/// more than where the batch starts, so what is held stays bounded.
#[test]
fn a_long_message_is_handed_on_before_its_end() {
    let (cap, block, len) = (64 << 10, 16 << 10, 4 << 20);
    let given = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let r = Endless {
        at: 0,
        len,
        given: given.clone(),
    };
    let (mut batches, mut urls, mut held) = (0, 0, 0);
    let mut stats = MailStats::default();
    read_archive(
        &Extractor::new(),
        r,
        (block, cap),
        (
            |b: &MailBatch<'_>| b.len(),
            |n, b: &MailBatch<'_>| {
                let read = given.load(std::sync::atomic::Ordering::Relaxed) as u64;
                held = held.max(read - b.offset);
                batches += 1;
                urls += n;
                true
            },
            |_: &Problem| {},
            || true,
        ),
        &mut stats,
    )
    .unwrap();
    let line = b"see http://u.example/a/b?c=d in this line\n".len();
    assert!(urls + 2 >= (len - 15) / line, "{urls}");
    assert!(batches > 40, "{batches}");
    let bound = (cap + mbox::DECIDED_AFTER + 3 * block) as u64;
    assert!(held <= bound, "held {held} > {bound}");
    assert_eq!((stats.messages, stats.problems), (1, 1));
}
