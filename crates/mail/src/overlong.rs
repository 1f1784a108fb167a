//! Messages longer than the cap: read from a stream, a piece at a time, and
//! from a whole buffer, they give the same URLs, places, problems and
//! counts, for every cap, block size and pause.

use std::io::{self, Read};

use super::differential::Rng;
use super::*;
use urlsift_core::Extractor;

type Seen = (Vec<(MailWhere, u64, String)>, Vec<Problem>, MailStats);

/// The URLs of a batch, with their places and lines.
fn records(b: &MailBatch<'_>) -> Vec<(MailWhere, u64, String)> {
    let mut v = Vec::new();
    b.each(|w, l, m| v.push((w.clone(), l, m.url_str().into_owned())));
    v
}

fn whole(data: &[u8], cap: usize) -> Seen {
    let (mut urls, mut problems) = (Vec::new(), Vec::new());
    let stats = scan_archive_capped(
        &Extractor::new(),
        data,
        cap,
        (
            records,
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
    let r = Pieces {
        data,
        piece,
        at: 0,
        pauses,
        paused: false,
    };
    let (seen, failed) = streamed_from(r, cap, block, None);
    assert!(!failed);
    seen
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
    out.extend(edge_inputs());
    out
}

/// Inputs whose shape is at an edge: text like a header block, messages
/// about a cap long, long `From ` lines, blanks, a long line.
fn edge_inputs() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
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
    // `From ` lines longer than FROM_LINE_MAX: first, after a blank line,
    // and after none (then no message start).
    let mut long_from = b"From ".to_vec();
    long_from.extend_from_slice(&b"y".repeat(9000));
    long_from.extend_from_slice(b"\nSubject: a\n\nhttp://a.example/\n\nFrom ");
    long_from.extend_from_slice(&b"z".repeat(6000));
    long_from.extend_from_slice(b"\nSubject: b\n\nhttp://b.example/\nFrom ");
    long_from.extend_from_slice(&b"w".repeat(5000));
    long_from.extend_from_slice(b"\nSubject: c\n\nhttp://c.example/\n");
    out.push(long_from);
    // A long `From ` line of blanks, then blanks only.
    for end in [&b""[..], b"\n", b"\n\n", b"\n \n"] {
        let mut v = b"From a@b Mon Jan  1 00:00:00 2024".to_vec();
        v.extend_from_slice(&b" ".repeat(10_000));
        v.extend_from_slice(end);
        out.push(v);
    }
    // Blanks only.
    out.push(b"\n \r\n".repeat(1500));
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
            let urls = memchr::memmem::find(data, b"://").is_some();
            assert!(!urls || !want.0.is_empty(), "input {n}");
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

/// A stream made as it is read: `head`, then `line` repeated to `len`
/// bytes in all, then `tail`. Counts the bytes it gave.
struct Endless {
    head: &'static [u8],
    line: &'static [u8],
    tail: &'static [u8],
    at: usize,
    len: usize,
    given: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let all = self.len + self.tail.len();
        let n = buf.len().min(all - self.at);
        for (i, b) in buf[..n].iter_mut().enumerate() {
            let k = self.at + i;
            *b = if k < self.head.len() {
                self.head[k]
            } else if k < self.len {
                self.line[(k - self.head.len()) % self.line.len()]
            } else {
                self.tail[k - self.len]
            };
        }
        self.at += n;
        self.given
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// Runs `r` through the stream reader with a cap of 64 KiB and blocks of
/// 16 KiB: the batches, URLs, the most bytes read past a batch's start
/// when it came, and the counts.
fn held(r: Endless) -> (usize, usize, u64, MailStats) {
    let given = r.given.clone();
    let (mut batches, mut urls, mut held) = (0, 0, 0);
    let mut stats = MailStats::default();
    read_archive(
        &Extractor::new(),
        r,
        (16 << 10, 64 << 10),
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
    (batches, urls, held, stats)
}

/// What [`held`] may find: the cap, what decides a message start, and
/// a few blocks.
const HELD_MAX: u64 = ((64 << 10) + mbox::DECIDED_AFTER + 3 * (16 << 10)) as u64;

/// An mbox whose `From ` line is 4 MiB long is read in bounded memory:
/// the line is never scanned, and is let go as it comes.
#[test]
fn a_long_from_line_is_let_go_as_it_comes() {
    let (batches, urls, held, stats) = held(Endless {
        head: b"From ",
        line: b"x",
        tail: b"\nSubject: s\n\nhttp://a.example/\n",
        at: 0,
        len: 4 << 20,
        given: Default::default(),
    });
    assert_eq!((batches, urls, stats.messages), (1, 1, 1));
    assert!(held <= HELD_MAX, "held {held} > {HELD_MAX}");
}

/// A stream of one long message is handed on a piece at a time: each
/// batch comes while the reader has given at most the cap and a few blocks
/// more than where the batch starts, so what is held stays bounded.
#[test]
fn a_long_message_is_handed_on_before_its_end() {
    const LINE: &[u8] = b"see http://u.example/a/b?c=d in this line\n";
    let len = 4 << 20;
    let (batches, urls, held, stats) = held(Endless {
        head: b"Subject: long\n\n",
        line: LINE,
        tail: b"",
        at: 0,
        len,
        given: Default::default(),
    });
    assert!(urls + 2 >= (len - 15) / LINE.len(), "{urls}");
    assert!(batches > 40, "{batches}");
    assert!(held <= HELD_MAX, "held {held} > {HELD_MAX}");
    assert_eq!((stats.messages, stats.problems), (1, 1));
}

#[test]
fn a_long_message_in_a_buffer_is_handed_on_a_piece_at_a_time() {
    // A whole buffer's long message is handed on as a stream's is: its head,
    // then each piece of its rest, each with the URLs of at most the cap's
    // bytes; not all its URLs at once. The messages around it are as ever.
    const LINE: &[u8] = b"see http://u.example/a/b?c=d in this line\n";
    let cap = 4096;
    let mut data =
        b"From a@b Mon Jan  1 00:00:00 2024\nSubject: s\n\nhttp://first.example/\n\n".to_vec();
    data.extend_from_slice(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: long\n\n");
    for _ in 0..2000 {
        data.extend_from_slice(LINE);
    }
    data.extend_from_slice(
        b"\nFrom c@d Mon Jan  1 00:00:00 2024\nSubject: t\n\nhttp://last.example/\n",
    );
    let mut most = 0;
    let mut urls = Vec::new();
    let stats = scan_archive_capped(
        &Extractor::new(),
        &data,
        cap,
        (
            records,
            |v, _: &MailBatch<'_>| {
                most = most.max(v.len());
                urls.extend(v);
                true
            },
            |_: &Problem| {},
        ),
    );
    assert_eq!(urls.len(), 2002);
    assert!(most <= cap / LINE.len() + 1, "a batch held {most} URLs");
    assert_eq!(stats.messages, 3);
    assert_eq!(
        (urls[0].2.as_str(), urls[2001].2.as_str()),
        ("http://first.example/", "http://last.example/")
    );
    // And as a stream, the same.
    assert_eq!(
        whole(&data, cap).0,
        streamed(&data, cap, 1000, 333, false).0
    );
}

#[test]
fn a_piece_dense_in_urls_is_mapped_a_part_at_a_time() {
    // A piece of a long message's rest holding more than `MAP_PART` URLs is
    // mapped in parts of at most that many, each URL at its own file
    // offset and line, all of them in order.
    let cap = 1 << 20;
    let mut data = b"From a@b Mon Jan  1 00:00:00 2024\nSubject: dense\n\n".to_vec();
    let n = 3 * cap / 20;
    for i in 0..n {
        data.extend_from_slice(format!("http://u.example/{i}\n").as_bytes());
    }
    let (mut most, mut seen) = (0, Vec::new());
    scan_archive_capped(
        &Extractor::new(),
        &data,
        cap,
        (
            |b: &MailBatch<'_>| {
                let mut v = Vec::new();
                b.each(|_, line, m| v.push((m.start, line, m.url_str().into_owned())));
                v
            },
            |v: Vec<(usize, u64, String)>, _: &MailBatch<'_>| {
                most = most.max(v.len());
                seen.extend(v);
                true
            },
            |_: &Problem| {},
        ),
    );
    assert_eq!(seen.len(), n);
    assert!(most <= MAP_PART, "a part held {most} URLs");
    assert!(cap / 20 > MAP_PART, "no piece is split");
    let (mut at, mut expect) = (0, 1);
    for (i, (start, line, url)) in seen.iter().enumerate() {
        assert_eq!(url, &format!("http://u.example/{i}"));
        assert!(data[*start..].starts_with(url.as_bytes()));
        expect += data[at..*start].iter().filter(|&&b| b == b'\n').count() as u64;
        at = *start;
        assert_eq!(*line, expect, "line of {url}");
    }
    // And as a stream, the same.
    assert_eq!(
        whole(&data, cap),
        streamed(&data, cap, 1 << 16, 4093, false)
    );
}

/// Mail-shaped bytes: mbox or not, `From ` lines that start messages and
/// some that do not (quoted, in bodies, longer than `FROM_LINE_MAX`),
/// CRLF, MIME parts, URLs, long lines.
fn random_mail(rng: &mut Rng) -> Vec<u8> {
    let mut v = Vec::new();
    match rng.below(6) {
        0..=2 => v.extend_from_slice(b"From a@b Mon Jan  1 00:00:00 2024\n"),
        3 => v.extend_from_slice(b"Subject: s\nMessage-ID: <x@y>\n\n"),
        4 => v.extend_from_slice(b"\n\n  \n"),
        _ => {}
    }
    let target = match rng.below(4) {
        0 => rng.below(600),
        1 => rng.below(6000),
        _ => 4000 + rng.below(30_000),
    };
    let crlf = rng.below(4) == 0;
    let sparse = rng.below(2) == 0;
    let mut i = 0;
    while v.len() < target {
        i += 1;
        let nl: &[u8] = if crlf && rng.below(2) == 0 {
            b"\r\n"
        } else {
            b"\n"
        };
        match rng.below(24) {
            0 | 1 if !sparse || rng.below(40) == 0 => {
                v.extend_from_slice(b"From a@b Mon Jan  1 00:00:00 2024");
                v.extend_from_slice(nl);
            }
            2 => {
                v.extend_from_slice(b"From ");
                v.extend(std::iter::repeat_n(b'f', 4085 + rng.below(20)));
                v.extend_from_slice(nl);
            }
            3 | 4 => {
                v.extend_from_slice(b"Subject: s");
                v.extend_from_slice(nl);
            }
            5 => v.extend_from_slice(
                b"X-Long-Name-Of-A-Field-That-Goes-On-And-On-Past-Eighty-Bytes-In-All-Of-It: v\n",
            ),
            6..=8 => v.extend_from_slice(nl),
            9 => v.extend_from_slice(b">From q\n"),
            10 => v.extend_from_slice(b">>From q\n"),
            11..=13 => {
                v.extend_from_slice(format!("http://u{i}.example/p?q={i}").as_bytes());
                v.extend_from_slice(nl);
            }
            14 => v.extend_from_slice(format!("see www.w{i}.example ok ").as_bytes()),
            15 => v.extend(std::iter::repeat_n(b'x', rng.below(300))),
            16 => v.extend_from_slice(b"<http://w.example/a\n  /b>\n"),
            17 => v.extend_from_slice(
                b"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Transfer-Encoding: base64\n\naHR0cDovL2I2NC5leGFtcGxlL3BhdGg=\n--b\nContent-Type: text/html\n\n<a href=\"http://h.example/\">x</a>\n",
            ),
            18 => v.extend_from_slice(
                b"Content-Transfer-Encoding: quoted-printable\n\nhttp://q.example/=\nab=3D\n",
            ),
            19 if !sparse || rng.below(10) == 0 => v.extend_from_slice(b"From x\n\n"),
            20 => v.extend(std::iter::repeat_n(b' ', rng.below(100))),
            21 => v.extend_from_slice(b"\nFrom "),
            22 => v.push(b'\r'),
            _ => v.extend_from_slice(format!("(http://p{i}.example/(x)) ").as_bytes()),
        }
    }
    v
}

/// A reader of `data` in pieces that fails once it reached `fail_at`.
struct Failing<'a> {
    inner: Pieces<'a>,
    fail_at: usize,
}

impl Read for Failing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.inner.at >= self.fail_at {
            return Err(io::Error::other("broken"));
        }
        let room = (self.fail_at - self.inner.at).min(buf.len());
        self.inner.read(&mut buf[..room])
    }
}

/// The stream reader on `r`, its sink stopping after `stop` batches;
/// with whether it failed.
fn streamed_from(
    r: impl Read + Send,
    cap: usize,
    block: usize,
    stop: Option<usize>,
) -> (Seen, bool) {
    let (mut urls, mut problems) = (Vec::new(), Vec::new());
    let mut stats = MailStats::default();
    let mut batches = 0;
    let res = read_archive(
        &Extractor::new(),
        r,
        (block, cap),
        (
            records,
            |v, _: &MailBatch<'_>| {
                batches += 1;
                if stop.is_some_and(|s| batches > s) {
                    return false;
                }
                urls.extend(v);
                true
            },
            |p: &Problem| problems.push(p.clone()),
            || true,
        ),
        &mut stats,
    );
    ((urls, problems, stats), res.is_err())
}

/// Random mail, caps, blocks, reads and pauses: the stream gives what the
/// whole gives; broken at a random byte, what the whole of the bytes
/// before gives, and the error; stopped early, a prefix of it.
/// `URLSIFT_MAIL_CASES` sets the number of cases (150).
#[test]
fn random_streams_equal_whole() {
    let cases = std::env::var("URLSIFT_MAIL_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..cases {
        let data = random_mail(&mut rng);
        let cap = match rng.below(4) {
            0 => 1 + rng.below(40),
            1 | 2 => 30 + rng.below(170),
            _ => 100 + rng.below(8000),
        };
        let want = whole(&data, cap);
        for _ in 0..3 {
            let most = if rng.below(2) == 0 { 300 } else { 20_000 };
            let block = (1 + rng.below(most)).max(40);
            let most = if rng.below(2) == 0 { 100 } else { 9000 };
            let piece = 1 + rng.below(most);
            let pauses = rng.below(4) == 0 && piece > 50;
            let r = Pieces {
                data: &data,
                piece,
                at: 0,
                pauses,
                paused: false,
            };
            let (got, failed) = streamed_from(r, cap, block, None);
            assert!(
                got == want && !failed,
                "case {case}: cap {cap}, block {block}, piece {piece}, pauses {pauses}"
            );
        }
        if !data.is_empty() {
            let k = rng.below(data.len());
            let (block, piece) = (40 + rng.below(5000), 1 + rng.below(3000));
            let r = Failing {
                inner: Pieces {
                    data: &data,
                    piece,
                    at: 0,
                    pauses: false,
                    paused: false,
                },
                fail_at: k,
            };
            let (got, failed) = streamed_from(r, cap, block, None);
            assert!(
                got == whole(&data[..k], cap) && failed,
                "case {case}: cap {cap}, broken at {k}, block {block}, piece {piece}"
            );
        }
        let stop = rng.below(5);
        let r = Pieces {
            data: &data,
            piece: 1 + rng.below(3000),
            at: 0,
            pauses: false,
            paused: false,
        };
        let (got, _) = streamed_from(r, cap, 40 + rng.below(3000), Some(stop));
        assert!(
            want.0.starts_with(&got.0),
            "case {case}: stopped after {stop}"
        );
    }
}
