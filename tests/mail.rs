//! Issue 5: mail and news archives (`--mail`).

use std::path::Path;
use std::process::Command;

use urlsift_core::{Extractor, Match};
use urlsift_mail::{MailBatch, MailInput, MailRun, MailStats, MailWhere, Problem, scan_archive};

const OWN: &str = "tests/data/mail/own";
const UPSTREAM: &str = "tests/data/mail/mail-parser";

struct Out {
    urls: Vec<(MailWhere, String)>,
    problems: Vec<Problem>,
    stats: MailStats,
}

fn scan(path: &str) -> Out {
    scan_bytes(&std::fs::read(path).unwrap())
}

/// Scan the mail stream `r` as a run does ([`MailRun::scan_map`]), read
/// `block` bytes at a time: its counts, or its error (the input is `s`).
fn scan_stream_map<'a, T: Send>(
    ex: &Extractor,
    r: impl std::io::Read + Send + 'a,
    block: usize,
    map_sink: (
        impl Fn(&MailBatch<'_>) -> T + Sync,
        impl FnMut(T, &MailBatch<'_>) -> bool,
    ),
    paused: impl FnMut() -> bool,
) -> Result<MailStats, String> {
    let run = MailRun {
        block_size: block,
        ..MailRun::default()
    };
    let input = MailInput::Stream(Box::new(r));
    let end = run.scan_map(ex, "s", input, map_sink, |_| {}, paused);
    let stats = run.stats.into_inner().unwrap();
    end.error.map_or(Ok(stats), Err)
}

/// [`scan_stream_map`], every URL handed to `on_match` in order.
fn scan_stream<'a>(
    ex: &Extractor,
    r: impl std::io::Read + Send + 'a,
    block: usize,
    mut on_match: impl FnMut(&MailWhere, u64, &Match<'_>),
) -> Result<MailStats, String> {
    let each = |(), b: &MailBatch<'_>| {
        b.each(&mut on_match);
        true
    };
    scan_stream_map(ex, r, block, (|_: &MailBatch<'_>| (), each), || true)
}

fn scan_bytes(data: &[u8]) -> Out {
    let mut urls = Vec::new();
    let mut problems = Vec::new();
    let stats = scan_archive(
        &Extractor::new(),
        data,
        |w, _, m| urls.push((w.clone(), m.url_str().into_owned())),
        |p| problems.push(p.clone()),
    );
    Out {
        urls,
        problems,
        stats,
    }
}

fn urls(o: &Out) -> Vec<&str> {
    o.urls.iter().map(|(_, u)| u.as_str()).collect()
}

fn bin(args: &[&str]) -> (String, String, i32) {
    let o = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code().unwrap_or(-1),
    )
}

#[test]
fn issue5_qp_soft_break_and_3d_in_query() {
    let o = scan(&format!("{OWN}/qp-soft-break.eml"));
    assert_eq!(
        urls(&o),
        [
            "https://reports.example.org/2024/quarterly/summary-of-the-year.html?section=network&lang=en",
            "https://de.example.org/Köln",
        ]
    );
    let w = &o.urls[0].0;
    assert_eq!((w.message, w.part), (1, 1));
    assert_eq!(w.message_id.as_deref(), Some("qp-1@example.org"));
    assert_eq!(w.content_type, "text/plain");
}

#[test]
fn issue5_base64_text_part() {
    let o = scan(&format!("{OWN}/base64-text.eml"));
    assert_eq!(
        urls(&o),
        [
            "http://hidden.example.net/path?x=1&y=2",
            "https://angle.example.net/a"
        ]
    );
}

#[test]
fn issue5_html_references_and_latin1() {
    let o = scan(&format!("{OWN}/html-amp.eml"));
    assert_eq!(
        urls(&o),
        [
            "https://shop.example.com/item?a=1&b=2&c=3",
            "http://example.com/café"
        ]
    );
    assert_eq!(o.urls[0].0.content_type, "text/html");
}

#[test]
fn issue5_nested_multipart_headers_and_attachments() {
    let o = scan(&format!("{OWN}/nested.eml"));
    assert_eq!(
        urls(&o),
        [
            "https://lists.example.org/unsubscribe?list=dev&user=frank",
            "mailto:dev-leave@lists.example.org",
            "https://lists.example.org/archive/dev/2024/msg00042.html",
            "http://plain.example.org/a=b",
            "http://html.example.org/?p=1&q=2",
            "http://forwarded.example.org/inner",
        ]
    );
    let parts: Vec<(u32, &str)> = o
        .urls
        .iter()
        .map(|(w, _)| (w.part, w.content_type.as_str()))
        .collect();
    assert_eq!(parts[0], (0, "header"));
    assert_eq!(parts[3].1, "text/plain");
    assert_eq!(parts[4].1, "text/html");
    assert_eq!(o.stats.parts_skipped, 1, "the image/png attachment");
    assert_eq!(o.stats.problem_messages, 0);
    // The raw offset of the plain part's body points at its text in the file.
    let data = std::fs::read(format!("{OWN}/nested.eml")).unwrap();
    let at = o.urls[3].0.part_offset as usize;
    assert!(data[at..].starts_with(b"Plain: http://plain.example.org/a=3Db"));
}

#[test]
fn issue5_broken_boundary_is_reported_and_scanned() {
    let o = scan(&format!("{OWN}/broken-boundary.eml"));
    assert_eq!(urls(&o), ["http://broken.example.org/still-found"]);
    assert_eq!(o.stats.problem_messages, 1);
    assert!(o.problems[0].what.contains("boundary"), "{:?}", o.problems);
}

#[test]
fn issue5_unknown_charset_scans_bytes_and_counts() {
    let o = scan(&format!("{OWN}/unknown-charset.eml"));
    assert_eq!(o.stats.unknown_charset, 1);
    assert!(urls(&o).contains(&"http://ascii.example.org/ok"));
}

#[test]
fn issue5_truncated_base64_scans_what_decodes() {
    let o = scan(&format!("{OWN}/truncated-base64.eml"));
    // The text repeats the URL three times; the first two decode.
    assert_eq!(
        urls(&o),
        [
            "http://truncated.example.org/first",
            "http://truncated.example.org/first"
        ]
    );
    assert_eq!(o.stats.problem_messages, 1);
    assert!(
        o.problems
            .iter()
            .any(|p| p.what.contains("truncated base64"))
    );
    let data = std::fs::read(format!("{OWN}/truncated-base64.eml")).unwrap();
    let p = o
        .problems
        .iter()
        .find(|p| p.what.contains("base64"))
        .unwrap();
    assert!(
        data[p.offset as usize..].starts_with(b"U3Rhcn"),
        "offset points at the body"
    );
}

#[test]
fn issue5_mboxrd_archive() {
    let path = format!("{OWN}/archive.mbox");
    let o = scan(&path);
    assert_eq!(o.stats.messages, 3);
    assert_eq!(
        urls(&o),
        [
            "https://lists.example.org/u?id=1&t=2",
            "http://one.example.org/",
            "http://quoted.example.org/",
            "http://two.example.org/very/long/path?k=v",
            "http://still-two.example.org/",
            "http://three.example.org/",
        ]
    );
    let msgs: Vec<(u64, Option<&str>)> = o
        .urls
        .iter()
        .map(|(w, _)| (w.message, w.message_id.as_deref()))
        .collect();
    assert_eq!(msgs[0], (1, Some("m1@example.org")));
    assert_eq!(msgs[4], (2, Some("m2@example.org")));
    assert_eq!(msgs[5], (3, None));
    let data = std::fs::read(&path).unwrap();
    let off = o.urls[5].0.message_offset as usize;
    assert!(data[off..].starts_with(b"From: Carol"));
}

#[test]
fn issue5_upstream_messages() {
    let o = scan(&format!("{UPSTREAM}/thirdparty-014.eml"));
    assert!(urls(&o).contains(&"http://lists.maptools.org/mailman/listinfo/shapelib"));
    assert!(o.urls.iter().any(|(w, _)| w.part == 0));
    let o = scan(&format!("{UPSTREAM}/legacy-028.eml"));
    assert_eq!(
        urls(&o),
        ["cid:823504223@17052000-0f8d", "cid:823504223@17052000-0f94"]
    );
    for f in ["malformed-001.eml", "malformed-022.eml", "legacy-015.eml"] {
        let o = scan(&format!("{UPSTREAM}/{f}"));
        assert_eq!(o.stats.messages, 1, "{f}");
    }
    assert!(
        scan(&format!("{UPSTREAM}/malformed-001.eml"))
            .stats
            .problem_messages
            > 0
    );
}

#[test]
fn issue5_malformed_inputs_never_panic() {
    let ex = Extractor::new();
    let cases: &[&[u8]] = &[
        b"",
        b"From ",
        b"From x\n",
        b"From a\nSubject: x\n\n>From \n>",
        b"Content-Type: multipart/mixed; boundary=\n\n--\n",
        b"Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n====",
        b"Content-Type: text/html\n\n&#x;&#99999999;&amp",
        b"\xff\xfe\x00From: \n\n",
    ];
    for c in cases {
        scan_archive(&ex, c, |_, _, _| {}, |_| {});
    }
}

#[test]
fn issue5_cli_json_fields_and_stats() {
    let (out, err, code) = bin(&[
        "--mail",
        "--stats",
        "--format",
        "json",
        &format!("{OWN}/archive.mbox"),
    ]);
    assert_eq!(code, 0);
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["message"], 1);
    assert_eq!(first["message_id"], "m1@example.org");
    assert_eq!(first["part"], 0);
    assert_eq!(first["content_type"], "header");
    assert!(first["part_offset"].is_u64());
    assert!(err.contains("3 messages"), "{err}");
}

/// A maildir, made at test time: its file names hold `:`, which a packaged
/// crate cannot.
fn make_maildir(root: &Path) {
    let msg = |id: &str, n: u32| {
        format!(
            "From: x@example.org\nMessage-ID: <{id}@example.org>\nSubject: maildir\n\n\
             maildir message {n} http://maildir.example.org/{n}\n"
        )
    };
    for d in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(root.join("cur/1700000000.M1P1.host:2,S"), msg("md-1", 1)).unwrap();
    std::fs::write(root.join("new/1700000001.M2P2.host"), msg("md-2", 2)).unwrap();
}

#[test]
fn issue5_cli_walks_maildir_and_news_spool() {
    let d = tempfile::tempdir().unwrap();
    let maildir = d.path().join("maildir");
    make_maildir(&maildir);
    let (out, _, code) = bin(&[
        "--mail",
        "-I",
        maildir.to_str().unwrap(),
        &format!("{OWN}/news"),
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "http://maildir.example.org/1\nhttp://maildir.example.org/2\n\
         https://news-archive.example.net/alt.test/1\nnews:alt.test\nhttp://news.example.net/faq.html\n"
    );
}

#[test]
fn issue5_cli_problems_name_file_and_offset() {
    let f = format!("{OWN}/broken-boundary.eml");
    let (out, err, code) = bin(&["--mail", "--stats", &f]);
    assert_eq!(code, 0, "a malformed message is not an error");
    assert_eq!(out, "http://broken.example.org/still-found\n");
    assert!(err.contains(&format!("{f}: byte ")), "{err}");
    assert!(err.contains("1 messages with problems"), "{err}");
}

#[test]
fn issue5_plain_mode_hints_but_output_is_unchanged() {
    let f = format!("{OWN}/archive.mbox");
    let (out, err, _) = bin(&[&f]);
    assert!(err.contains("--mail"), "{err}");
    let data = std::fs::read(&f).unwrap();
    let plain: Vec<String> = urlsift_core::find(&data)
        .map(|m| m.url_str().into_owned() + "\n")
        .collect();
    assert_eq!(out, plain.concat());
    let (_, err, _) = bin(&["crates/core/tests/data/extract_cases.json"]);
    assert!(!err.contains("--mail"));
    assert!(Path::new(&f).exists());
}

type Seen = Vec<(MailWhere, u64, String)>;

#[test]
fn issue5_stream_equals_whole_for_any_block_size() {
    let mut data = std::fs::read(format!("{OWN}/archive.mbox")).unwrap();
    data.extend_from_slice(&std::fs::read(format!("{OWN}/archive.mbox")).unwrap());
    let ex = Extractor::new();
    let collect = |f: &mut dyn FnMut(&mut Seen) -> MailStats| {
        let mut v = Vec::new();
        let s = f(&mut v);
        (v, s)
    };
    let whole = collect(&mut |v| {
        scan_archive(
            &ex,
            &data,
            |w, l, m| v.push((w.clone(), l, m.url_str().into_owned())),
            |_| {},
        )
    });
    assert_eq!(whole.1.messages, 6);
    for block in [1, 7, 64, 200, 333, 1000, 1 << 20] {
        let streamed = collect(&mut |v| {
            scan_stream(&ex, &data[..], block, |w, l, m| {
                v.push((w.clone(), l, m.url_str().into_owned()))
            })
            .unwrap()
        });
        assert_eq!(streamed, whole, "block {block}");
    }
}

/// A reader of `data` in pieces of `piece` bytes that fails at byte
/// `fail_at`.
struct Breaks<'a> {
    data: &'a [u8],
    piece: usize,
    at: usize,
    fail_at: usize,
}

impl std::io::Read for Breaks<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.fail_at {
            return Err(std::io::Error::other("boom"));
        }
        let n = self.piece.min(buf.len()).min(self.fail_at - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A mail stream that breaks midway: every URL before the break is found,
/// as if the stream ended there, and the error says where it broke; for
/// blocks read on the calling thread and blocks read ahead.
#[test]
fn mail_stream_broken_midway_scans_what_came_before() {
    let one = std::fs::read(format!("{OWN}/archive.mbox")).unwrap();
    let data = one.repeat(600);
    let ex = Extractor::new();
    for (block, fail_at) in [(4096, 100_003), (64 << 10, 300_001), (64 << 10, 7)] {
        let mut want = Vec::new();
        let stats = scan_archive(
            &ex,
            &data[..fail_at],
            |w, l, m| want.push((w.clone(), l, m.url_str().into_owned())),
            |_| {},
        );
        assert!(fail_at < 10 || want.len() > 50, "{}", want.len());
        let mut got = Vec::new();
        let r = Breaks {
            data: &data,
            piece: 999,
            at: 0,
            fail_at,
        };
        let err = scan_stream(&ex, r, block, |w, l, m| {
            got.push((w.clone(), l, m.url_str().into_owned()))
        })
        .unwrap_err();
        assert_eq!(got, want, "block {block}, break at {fail_at}");
        assert_eq!(err, format!("s: at byte {fail_at}: boom"));
        // A run keeps the counts of what came before the break.
        let run = MailRun::default();
        let r = Breaks {
            data: &data,
            piece: 999,
            at: 0,
            fail_at,
        };
        let input = MailInput::Stream(Box::new(r));
        let err = run.scan(&ex, "s", input, |_, _, _| {}, |_| {}).error;
        assert_eq!(err, Some(format!("s: at byte {fail_at}: boom")));
        assert_eq!(
            *run.stats.lock().unwrap(),
            stats,
            "block {block}, break at {fail_at}"
        );
    }
}

/// `-m 1`, `-l` and `-q` end a `--mail` stream that never ends once it has
/// what they take, as they end a plain one.
#[test]
fn mail_cli_stops_an_endless_mail_stream() {
    use std::io::Write;
    let one = std::fs::read(format!("{OWN}/archive.mbox")).unwrap();
    for (args, want) in [
        (&["--mail", "-m", "1"][..], 1),
        (&["--mail", "-l"][..], 1),
        (&["--mail", "-q"][..], 0),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_urlsift"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let chunk = one.repeat(100);
        // Fed until the reader goes away.
        let feed = std::thread::spawn(move || while stdin.write_all(&chunk).is_ok() {});
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("{args:?}: still running after 120 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        feed.join().unwrap();
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}");
        assert_eq!(out.lines().count(), want, "{args:?}: {out}");
    }
}

#[test]
fn issue5_cli_stdin() {
    let f = format!("{OWN}/archive.mbox");
    let (file_out, _, _) = bin(&["--mail", "--format", "json", &f]);
    let o = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(["--mail", "--format", "json"])
        .stdin(std::fs::File::open(&f).unwrap())
        .output()
        .unwrap();
    let stdin_out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(stdin_out, file_out.replace(&format!("\"{f}\""), "\"-\""));
}

#[test]
fn issue5_rfc2047_encoded_words_in_headers() {
    let o = scan(&format!("{OWN}/encoded-words.eml"));
    assert_eq!(
        urls(&o),
        [
            "https://talks.example.org/köln/2024?page=2",
            "http://b64.example.net/path?x=1",
            "http://plain.example.com/a=?b?c?=d",
        ]
    );
    assert!(o.urls.iter().all(|(w, _)| w.part == 0));
    assert!(o.problems.is_empty());
}

/// An input that is not mail at all under `--mail` (random bytes, plain
/// text, a gzip stream of plain text) is an error: named, exit 2. It is
/// still scanned as plain text, and the other inputs are complete.
#[test]
fn issue7_cli_invalid_mbox_is_a_warning_and_others_complete() {
    let d = tempfile::tempdir().unwrap();
    let garbage = d.path().join("garbage.mbox");
    let mut x = 7u32;
    let bytes: Vec<u8> = (0..5000)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) as u8 | 0x80
        })
        .collect();
    std::fs::write(&garbage, bytes).unwrap();
    let text = d.path().join("notes.mbox");
    std::fs::write(&text, "just notes, see http://notes.example/a\n").unwrap();
    let gz = d.path().join("notes.mbox.gz");
    {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b"gzipped notes http://gz.example/b\n").unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
    }
    let good = format!("{OWN}/archive.mbox");
    let (alone, _, code) = bin(&["--mail", &good]);
    assert_eq!(code, 0);
    let args = [
        "--mail",
        "-I",
        garbage.to_str().unwrap(),
        &good,
        text.to_str().unwrap(),
        gz.to_str().unwrap(),
    ];
    let (out, err, code) = bin(&args);
    // Not mail is a warning, as every problem in mail: URLs were found.
    assert_eq!(code, 0, "{err}");
    for f in [&garbage, &text, &gz] {
        let want = format!("urlsift: {}: byte 0: not mail", f.display());
        assert!(err.contains(&want), "{want} in {err}");
    }
    assert!(!err.contains(&format!("{good}: byte 0: not mail")), "{err}");
    // The good archive is complete, and the text inputs are still scanned.
    assert_eq!(
        out,
        format!("{alone}http://notes.example/a\nhttp://gz.example/b\n")
    );
}

/// Under `--mail`, text that is not mail is scanned as the plain text it
/// is: the URLs and their places are those of plain mode (its first
/// paragraph is no header block), each in the input's one `text/plain`
/// part, for any thread count and chunk size, from a file or a pipe.
#[test]
fn mail_cli_scans_text_that_is_not_mail_as_plain_text() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("notes.txt");
    let mut text = b"release notes (1.0) http://first.example/para\n\n".to_vec();
    for i in 0..20_000 {
        let line = format!("line {i} see <http://a.example/{i}> and www.b{i}.example.\n");
        text.extend_from_slice(line.as_bytes());
    }
    std::fs::write(&p, &text).unwrap();
    let path = p.to_str().unwrap();
    let (plain, _, code) = bin(&["--format", "json", path]);
    assert_eq!(code, 0);
    let plain: Vec<serde_json::Value> = plain
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(plain.len(), 40_001);
    let (mail, err, code) = bin(&["--mail", "--format", "json", path]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(&format!("{path}: byte 0: not mail")), "{err}");
    let mail: Vec<serde_json::Value> = mail
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(mail.len(), plain.len());
    for (m, p) in mail.iter().zip(&plain) {
        for k in ["start", "end", "line", "url", "style"] {
            assert_eq!(m[k], p[k], "{k}: {m} against {p}");
        }
        assert_eq!((&m["message"], &m["part"]), (&1.into(), &1.into()), "{m}");
        assert_eq!(m["content_type"], "text/plain");
        assert_eq!(m["message_id"], serde_json::Value::Null);
        assert_eq!(
            (&m["message_offset"], &m["part_offset"]),
            (&0.into(), &0.into())
        );
        assert_eq!(
            (&m["part_start"], &m["part_line"]),
            (&p["start"], &p["line"])
        );
    }
    let want = bin(&["--mail", "--format", "json", "-j1", path]).0;
    for args in [&["-j2"][..], &["-j8"], &["--chunk-size", "1000"]] {
        let got = bin(&[&["--mail", "--format", "json", path][..], args].concat()).0;
        assert!(got == want, "{args:?}");
    }
    let (piped, _) = bin_stdin(&["--mail", "--format", "json", "-j2"], &text);
    let file = format!("\"file\":{}", serde_json::to_string(path).unwrap());
    assert!(piped == want.replace(&file, "\"file\":\"-\""));
}

/// `urlsift ARGS -` with `input` on standard input: stdout and stderr.
fn bin_stdin(args: &[&str], input: &[u8]) -> (String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(args)
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feed = std::thread::spawn(move || stdin.write_all(&input));
    let o = child.wait_with_output().unwrap();
    feed.join().unwrap().unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Whether an input is mail is judged alike from a file and from a pipe,
/// so both give the same records and warnings: blank lines longer than
/// the head read first, a `From ` line without headers, text, an mbox.
#[test]
fn mail_cli_judges_a_file_and_a_pipe_alike() {
    let d = tempfile::tempdir().unwrap();
    let archive = std::fs::read(format!("{OWN}/archive.mbox")).unwrap();
    let inputs: [(&str, Vec<u8>); 4] = [
        (
            "blank",
            [&b"\n".repeat(5000)[..], b"text http://a.example/x\n"].concat(),
        ),
        (
            "from",
            b"From nobody\nnot a header http://b.example/\n".to_vec(),
        ),
        ("text", b"notes (1.0)\nhttp://c.example/\n".to_vec()),
        ("mbox", archive),
    ];
    for (name, bytes) in inputs {
        let p = d.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let path = p.to_str().unwrap();
        let args = ["--mail", "--format", "json"];
        let (out, err, _) = bin(&[&args[..], &[path]].concat());
        let (piped, piped_err) = bin_stdin(&args, &bytes);
        let file = format!("\"file\":{}", serde_json::to_string(path).unwrap());
        assert!(!out.is_empty(), "{name}");
        if name == "blank" {
            // Blank as far as the head goes: text, each URL in its one part.
            assert!(out.contains(r#""part_offset":0,"part_start":5005,"part_line":5001"#));
        }
        assert_eq!(piped, out.replace(&file, "\"file\":\"-\""), "{name}");
        assert_eq!(piped_err, err.replace(path, "-"), "{name}");
    }
}

#[test]
fn mail_cli_reads_text_shaped_like_a_header_as_text() {
    // A URL list, a log and a note have the shape of a header field on
    // their first line (`http:`, `12:`, `Note:`) but no mail field: each is
    // text, scanned as such (never read whole as one message), its URLs
    // in its one part, as a file and from a pipe.
    let d = tempfile::tempdir().unwrap();
    let inputs: [(&str, Vec<u8>, &str); 4] = [
        (
            "urls",
            b"http://a.example/1\nhttp://a.example/2\n".repeat(3000),
            "http://a.example/1",
        ),
        (
            "log",
            b"12:00:01 GET http://b.example/x 200\n".repeat(3000),
            "http://b.example/x",
        ),
        (
            "note",
            b"Note: see http://c.example/\nmore text\n\nhttp://d.example/\n".to_vec(),
            "http://c.example/",
        ),
        (
            "iso",
            b"2024-01-01T12:00:00Z start http://e.example/\n".to_vec(),
            "http://e.example/",
        ),
    ];
    for (name, bytes, first) in inputs {
        let p = d.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let path = p.to_str().unwrap();
        let (piped, piped_err) = bin_stdin(&["--mail", "--format", "json"], &bytes);
        let (out, err, _) = bin(&["--mail", "--format", "json", path]);
        let plain = bin(&["--format", "json", path]).0;
        assert!(piped_err.contains("not mail"), "{name}: {piped_err}");
        assert!(err.contains("not mail"), "{name}: {err}");
        let rec: serde_json::Value = serde_json::from_str(piped.lines().next().unwrap()).unwrap();
        assert_eq!(rec["url"], first, "{name}");
        assert_eq!(rec["part"], 1, "{name}");
        assert_eq!(rec["content_type"], "text/plain", "{name}");
        assert_eq!(rec["part_offset"], 0, "{name}");
        // The same URLs as without --mail.
        assert_eq!(out.lines().count(), plain.lines().count(), "{name}");
    }
    // A header block with a mail field is still mail, whatever comes first.
    let (out, err) = bin_stdin(
        &["--mail", "--format", "json"],
        b"X-Note: 1\nSubject: hi\n\nhttp://f.example/\n",
    );
    assert!(!err.contains("not mail"), "{err}");
    assert!(out.contains(r#""content_type":"text/plain""#), "{out}");
}

#[test]
fn part_headers_are_scanned_as_their_part() {
    // MHTML (RFC 2557) names each part's URL in its own header block, and
    // message/external-body (RFC 2017) gives the body's URL as a parameter.
    let o = scan(&format!("{OWN}/part-headers.eml"));
    let got: Vec<(u32, &str, &str)> = o
        .urls
        .iter()
        .map(|(w, u)| (w.part, w.content_type.as_str(), u.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (2, "header", "http://base.example.org/docs/"),
            (3, "header", "http://saved.example.org/page.html"),
            (3, "text/html", "http://body.example.org/x"),
            (4, "header", "http://saved.example.org/logo.png"),
            (5, "header", "ftp://ftp.example.org/pub/big.tar.gz"),
        ]
    );
    // A part header's offset is its first header line in the file.
    let data = std::fs::read(format!("{OWN}/part-headers.eml")).unwrap();
    for (w, _) in o.urls.iter().filter(|(w, _)| w.content_type == "header") {
        assert!(data[w.part_offset as usize..].starts_with(b"Content-Type: "));
    }
    assert_eq!(o.stats.problem_messages, 0);
}

/// `levels` messages each holding the next as a `message/rfc822` part, the
/// innermost a text part with a URL.
fn nested_rfc822(levels: usize) -> Vec<u8> {
    let mut m =
        b"From: a@example.org\nSubject: level\nMIME-Version: 1.0\nContent-Type: message/rfc822\n\n"
            .repeat(levels);
    m.extend_from_slice(
        b"From: z@example.org\nContent-Type: text/plain\n\nhttp://deep.example.org/inner\n",
    );
    m
}

/// `levels` openings (`open(0)`, `open(1)`, ...), then `inner`, then the
/// closings innermost first (`close(levels - 1)` ... `close(0)`).
fn nest(
    levels: usize,
    open: impl Fn(usize) -> String,
    inner: &[u8],
    close: impl Fn(usize) -> String,
) -> Vec<u8> {
    let mut m = Vec::new();
    for i in 0..levels {
        m.extend_from_slice(open(i).as_bytes());
    }
    m.extend_from_slice(inner);
    for i in (0..levels).rev() {
        m.extend_from_slice(close(i).as_bytes());
    }
    m
}

/// Scan `data` on a thread with a small stack (1 MiB), as a worker of a
/// run could be.
fn scan_on_small_stack(data: Vec<u8>) -> Out {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || scan_bytes(&data))
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn nested_rfc822_6000_deep_does_not_overflow() {
    let data = nested_rfc822(6000);
    assert!(data.len() > 450_000);
    let o = scan_on_small_stack(data);
    assert_eq!(urls(&o), ["http://deep.example.org/inner"]);
    assert_eq!(o.urls[0].0.content_type, "text/plain");
    assert_eq!(o.stats.messages, 1);
    assert_eq!(o.stats.parts_scanned, 1);
}

#[test]
fn nested_rfc822_100000_deep_does_not_overflow() {
    // Deep enough that freeing the parsed tree level by level (recursively)
    // would overflow the stack too.
    let o = scan_on_small_stack(nested_rfc822(100_000));
    assert_eq!(urls(&o), ["http://deep.example.org/inner"]);
}

#[test]
fn nested_multiparts_10000_deep_do_not_overflow() {
    const N: usize = 10_000;
    // Multipart in multipart.
    let mut m = b"From: a@example.org\nContent-Type: multipart/mixed; boundary=\"b0\"\n\n".to_vec();
    m.extend(nest(
        N,
        |i| {
            format!(
                "--b{i}\nContent-Type: multipart/mixed; boundary=\"b{}\"\n\n",
                i + 1
            )
        },
        format!(
            "--b{N}\nContent-Type: text/plain\n\nhttp://multipart.example.org/inner\n--b{N}--\n"
        )
        .as_bytes(),
        |i| format!("--b{i}--\n"),
    ));
    let o = scan_on_small_stack(m);
    assert_eq!(urls(&o), ["http://multipart.example.org/inner"]);
    assert_eq!(o.urls[0].0.part as usize, N + 2);
    assert!(o.problems.is_empty(), "{:?}", &o.problems[..1]);

    // A message/rfc822 part in a multipart in a message/rfc822 part ...
    let m = nest(
        N,
        |i| {
            format!(
                "From: x@example.org\nContent-Type: multipart/mixed; boundary=m{i}\n\n\
                 --m{i}\nContent-Type: message/rfc822\n\n"
            )
        },
        b"From: z@example.org\n\nhttp://mixed.example.org/inner\n",
        |i| format!("--m{i}--\n"),
    );
    let o = scan_on_small_stack(m);
    assert_eq!(urls(&o), ["http://mixed.example.org/inner"]);

    // multipart/digest, whose parts are messages by default.
    let m = nest(
        N,
        |i| {
            format!(
                "From: x@example.org\nContent-Type: multipart/digest; boundary=d{i}\n\n--d{i}\n"
            )
        },
        b"From: z@example.org\n\nhttp://digest.example.org/inner\n",
        |i| format!("--d{i}--\n"),
    );
    let o = scan_on_small_stack(m);
    assert_eq!(urls(&o), ["http://digest.example.org/inner"]);
}

#[test]
fn issue17_cli_deeply_nested_message_does_not_abort_the_run() {
    let d = tempfile::tempdir().unwrap();
    let deep = d.path().join("deep.eml");
    std::fs::write(&deep, nested_rfc822(6000)).unwrap();
    let good = d.path().join("good.eml");
    std::fs::write(
        &good,
        "From: g@example.org\nMessage-ID: <g@example.org>\n\nsee http://good.example.org/ok\n",
    )
    .unwrap();
    let (out, err, code) = bin(&[
        "--mail",
        "-I",
        deep.to_str().unwrap(),
        good.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "http://deep.example.org/inner\nhttp://good.example.org/ok\n"
    );
}

/// The URLs a plain scan finds in `data`.
fn plain_urls(data: &[u8]) -> Vec<String> {
    urlsift_core::find(data)
        .map(|m| m.url_str().into_owned())
        .collect()
}

#[test]
fn preamble_before_wrong_boundary_line_is_scanned() {
    let cases: &[&[u8]] = &[
        // The first boundary line is right, the later ones are not.
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=\"b\"\n\n\
          Preamble http://preamble.example.org/1\n--b\nContent-Type: text/plain\n\n\
          body http://body.example.org/1\n--wrong--\nafter http://after.example.org/1\n",
        // Boundary lines that only start with the declared boundary.
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=\"declared\"\n\n\
          Preamble http://preamble.example.org/2\n--declared-v2\nContent-Type: text/plain\n\n\
          body http://body.example.org/2\n--declared-v2--\nafter http://after.example.org/2\n",
        // The declared boundary only inside the preamble text.
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=\"declared\"\n\n\
          Preamble http://preamble.example.org/3 --declared\n--other\nContent-Type: text/plain\n\n\
          body http://body.example.org/3\n--other--\nafter http://after.example.org/3\n",
        // No line with the declared boundary at all.
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=\"declared\"\n\n\
          Preamble http://preamble.example.org/4\n--used\nContent-Type: text/plain\n\n\
          body http://body.example.org/4\n--used--\nafter http://after.example.org/4\n",
    ];
    for (i, c) in cases.iter().enumerate() {
        let o = scan_bytes(c);
        let got: Vec<String> = urls(&o).iter().map(|u| u.to_string()).collect();
        assert_eq!(got, plain_urls(c), "case {}", i + 1);
        assert_eq!(o.stats.problem_messages, 1, "case {}", i + 1);
        let (w, u) = &o.urls[0];
        assert!(u.starts_with("http://preamble."));
        assert_eq!((w.part, w.content_type.as_str()), (1, "multipart/mixed"));
        // The offset is that of the text in the file.
        assert!(c[w.part_offset as usize..].starts_with(b"Preamble"));
    }
}

#[test]
fn issue17_cli_preamble_and_epilogue_of_multiparts_are_scanned() {
    let walked: &[u8] = b"From: a@example.org\nMessage-ID: <p@example.org>\n\
        Content-Type: multipart/mixed; boundary=\"out\"\n\n\
        This is a multi-part message: http://preamble.example.org/\n\
        --out\nContent-Type: multipart/alternative; boundary=in\n\n\
        inner preamble http://inner-preamble.example.org/\n\
        --in\n\nplain http://plain.example.org/\n--in--\n\
        inner epilogue http://inner-epilogue.example.org/\n\
        --out\nContent-Type: image/png\n\nPNG\n--out--\n\
        epilogue http://epilogue.example.org/\n";
    let o = scan_bytes(walked);
    let got: Vec<(u32, &str, &str)> = o
        .urls
        .iter()
        .map(|(w, u)| (w.part, w.content_type.as_str(), u.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (1, "multipart/mixed", "http://preamble.example.org/"),
            (
                2,
                "multipart/alternative",
                "http://inner-preamble.example.org/"
            ),
            (3, "text/plain", "http://plain.example.org/"),
            // Text between parts goes with the multipart of the part after it.
            (1, "multipart/mixed", "http://inner-epilogue.example.org/"),
            (1, "multipart/mixed", "http://epilogue.example.org/"),
        ]
    );
    assert!(o.problems.is_empty(), "{:?}", o.problems);
    assert_eq!(
        o.stats.parts_scanned, 1,
        "preamble and epilogue are not parts"
    );

    // The same inside a message/rfc822 part (read by mail-parser).
    let nested = [
        &b"From: b@example.org\nContent-Type: multipart/mixed; boundary=top\n\n\
           top preamble http://top-preamble.example.org/\n\
           --top\nContent-Type: message/rfc822\n\n"[..],
        walked,
        b"--top--\ntop epilogue http://top-epilogue.example.org/\n",
    ]
    .concat();
    let o = scan_bytes(&nested);
    let got: Vec<String> = urls(&o).iter().map(|u| u.to_string()).collect();
    assert_eq!(got, plain_urls(&nested));
    assert!(o.problems.is_empty(), "{:?}", o.problems);
    let top: Vec<(u32, &str)> = o
        .urls
        .iter()
        .filter(|(_, u)| u.contains("top-"))
        .map(|(w, _)| (w.part, w.content_type.as_str()))
        .collect();
    assert_eq!(top, [(1, "multipart/mixed"), (1, "multipart/mixed")]);
    let first_inner = o
        .urls
        .iter()
        .find(|(_, u)| u.contains("//preamble."))
        .unwrap();
    assert_eq!(
        (first_inner.0.part, first_inner.0.content_type.as_str()),
        (3, "multipart/mixed")
    );

    // The CLI prints what a plain scan of the file prints.
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("nested.eml");
    std::fs::write(&f, &nested).unwrap();
    let (mail, _, code) = bin(&["--mail", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (plain, _, _) = bin(&[f.to_str().unwrap()]);
    assert_eq!(mail, plain);
}

#[test]
fn issue17_cli_message_that_panics_mail_parser_is_scanned_as_text() {
    // Found by the mail fuzz target: mail-parser panics on this message,
    // in an arithmetic overflow (so only where overflows are checked, as
    // in the test profile; a release build wraps and parses on).
    let o = scan(&format!("{OWN}/fuzz-mail-parser-panic.eml"));
    assert!(
        !cfg!(debug_assertions)
            || o.problems
                .iter()
                .any(|p| p.what.contains("MIME parser failed")),
        "{:?}",
        o.problems
    );
    let (_, err, code) = bin(&["--mail", &format!("{OWN}/fuzz-mail-parser-panic.eml")]);
    assert!(code == 0 || code == 1, "exit {code}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Every message and archive under tests/data/mail.
fn mail_files() -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    for dir in ["tests/data/mail/own", "tests/data/mail/mail-parser"] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "eml" || x == "mbox") {
                v.push(p);
            }
        }
    }
    v.sort();
    assert!(v.len() >= 10, "{v:?}");
    v
}

#[test]
fn issue20_cli_mail_positions_are_in_the_file() {
    // grep -n / -b point into the file: with --mail too. A URL written in
    // the file as it is gets its own line and offset there; one that
    // exists only after decoding (base64, quoted-printable joins, folded
    // headers) gets the start of its encoded line.
    let (mut literal, mut decoded) = (0, 0);
    for f in mail_files() {
        let data = std::fs::read(&f).unwrap();
        let (out, err, _) = bin(&["--mail", "-n", "-b", "-I", f.to_str().unwrap()]);
        for rec in out.lines() {
            let mut it = rec.splitn(3, ':');
            let line: u64 = it.next().unwrap().parse().unwrap();
            let off: usize = it.next().unwrap().parse().unwrap();
            let url = it.next().unwrap();
            assert!(off <= data.len(), "{f:?}: {rec}");
            let file_line = 1 + data[..off].iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(line, file_line, "{f:?}: {rec}: the line of its offset");
            if data[off..].starts_with(url.as_bytes()) {
                literal += 1;
            } else {
                decoded += 1;
                assert!(
                    off == 0 || data[off - 1] == b'\n',
                    "{f:?}: {rec}: a line start ({err})"
                );
            }
        }
        // Where the plain scan finds a URL as it is written, --mail says the same.
        let (plain, _, _) = bin(&["-n", "-b", "-I", f.to_str().unwrap()]);
        let plain: std::collections::HashSet<&str> = plain.lines().collect();
        for rec in out.lines() {
            let off: usize = rec.split(':').nth(1).unwrap().parse().unwrap();
            let url = rec.splitn(3, ':').nth(2).unwrap();
            if data[off..].starts_with(url.as_bytes()) && !url.contains('\n') {
                assert!(plain.contains(rec), "{f:?}: {rec} not in the plain scan");
            }
        }
    }
    assert!(
        literal > 20 && decoded > 3,
        "{literal} literal, {decoded} decoded"
    );
}

#[test]
fn issue20_cli_mail_json_keeps_part_positions() {
    let f = format!("{OWN}/base64-text.eml");
    let (out, _, code) = bin(&["--mail", "--format", "json", &f]);
    assert_eq!(code, 0);
    let data = std::fs::read(&f).unwrap();
    for l in out.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let (start, line) = (v["start"].as_u64().unwrap(), v["line"].as_u64().unwrap());
        assert!(v["part_start"].is_u64() && v["part_line"].is_u64(), "{l}");
        // In the file: the line of `start`.
        let file_line = 1 + data[..start as usize]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        assert_eq!(line, file_line as u64, "{l}");
        assert!(start >= v["part_offset"].as_u64().unwrap(), "{l}");
    }
}

#[test]
fn issue19_cli_mail_batches_formatted_in_parallel_agree() {
    // An mbox of many 1 MiB batches (the unit of parallel work), made of
    // every message under tests/data/mail: line numbers and offsets stay
    // file positions across batches, and the output is the same for every
    // thread count, from a file and from standard input, and with -m (the
    // serial path).
    let mut mbox = Vec::new();
    let mut n = 0;
    while mbox.len() < 4 << 20 {
        for f in mail_files() {
            let data = std::fs::read(&f).unwrap();
            let msg = if data.starts_with(b"From ") {
                data
            } else {
                let mut m = format!("From a@b Mon Jan  1 00:00:{:02} 2024\n", n % 60).into_bytes();
                m.extend_from_slice(&data);
                m
            };
            mbox.extend_from_slice(&msg);
            if !mbox.ends_with(b"\n\n") {
                mbox.extend_from_slice(b"\n\n");
            }
            n += 1;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.mbox");
    std::fs::write(&p, &mbox).unwrap();
    let p = p.to_str().unwrap();
    let (j1, _, code) = bin(&["--mail", "-n", "-b", "-j1", p]);
    assert_eq!(code, 0);
    let recs: Vec<&str> = j1.lines().collect();
    assert!(recs.len() > 1000, "{} records", recs.len());
    // The line of each offset, from the newlines before it.
    let newlines: Vec<usize> = (0..mbox.len()).filter(|&i| mbox[i] == b'\n').collect();
    for rec in &recs {
        let mut it = rec.splitn(3, ':');
        let line: u64 = it.next().unwrap().parse().unwrap();
        let off: usize = it.next().unwrap().parse().unwrap();
        let want = 1 + newlines.partition_point(|&nl| nl < off) as u64;
        assert_eq!(line, want, "{rec}: the line of its offset");
    }
    let (o, _, _) = bin(&["--mail", "-n", "-b", "-j8", p]);
    assert!(o == j1, "-j8 differs from -j1");
    let out = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(["--mail", "-n", "-b", "-j2", "-"])
        .stdin(std::fs::File::open(p).unwrap())
        .output()
        .unwrap();
    assert!(out.stdout == j1.as_bytes(), "standard input differs");
    let (m, _, _) = bin(&["--mail", "-n", "-b", "-m", "700", p]);
    let first: Vec<&str> = recs.iter().take(700).copied().collect();
    assert_eq!(m.lines().collect::<Vec<_>>(), first, "-m 700");
}

/// A reader of `data` in pieces of the given sizes (cycling) that pauses
/// (fails a read with `WouldBlock`) after every piece, as a pipe that
/// `tail -f` feeds is read.
struct Pausing<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    k: usize,
    at: usize,
    paused: bool,
}

impl std::io::Read for Pausing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at < self.data.len() && !std::mem::replace(&mut self.paused, true) {
            return Err(std::io::ErrorKind::WouldBlock.into());
        }
        self.paused = false;
        let n = self.sizes[self.k % self.sizes.len()]
            .min(buf.len())
            .min(self.data.len() - self.at);
        self.k += 1;
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A mail stream that pauses after every piece gives what the whole gives,
/// and at each pause every message the stream has ended so far (all but
/// the last begun) has been handed on.
#[test]
fn mail_stream_paused_after_every_piece_equals_whole() {
    let mut data = std::fs::read(format!("{OWN}/archive.mbox")).unwrap();
    for f in std::fs::read_dir("tests/data/mail/mail-parser").unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "eml") {
            data.extend_from_slice(b"From test@example.org Mon Jan  1 00:00:00 2024\n");
            data.extend_from_slice(&std::fs::read(&p).unwrap());
            data.extend_from_slice(b"\n");
        }
    }
    let data = data.repeat(3);
    let ex = Extractor::new();
    let mut whole: Seen = Vec::new();
    let stats = scan_archive(
        &ex,
        &data,
        |w, l, m| whole.push((w.clone(), l, m.url_str().into_owned())),
        |_| {},
    );
    assert!(stats.messages > 20 && whole.len() > 50, "{stats:?}");
    for sizes in [
        &[1usize, 2, 3, 4000][..],
        &[7, 3000],
        &[4096, 13, 999],
        &[20_000],
    ] {
        let seen = std::cell::RefCell::new(Seen::new());
        let pauses = std::cell::Cell::new(0);
        let r = Pausing {
            data: &data,
            sizes,
            k: 0,
            at: 0,
            paused: false,
        };
        // At a pause, no read is under way: what was read is all there is.
        let read = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let stats = scan_stream_map(
            &ex,
            Counted(r, read.clone()),
            1 << 20,
            (
                |b: &MailBatch<'_>| {
                    let mut v = Vec::new();
                    b.each(|w, l, m| v.push((w.clone(), l, m.url_str().into_owned())));
                    v
                },
                |v, _: &MailBatch<'_>| {
                    seen.borrow_mut().extend(v);
                    true
                },
            ),
            || {
                pauses.set(pauses.get() + 1);
                // Every message but the last begun in what was read.
                let got = &data[..read.load(std::sync::atomic::Ordering::Relaxed)];
                let ended = urlsift_mail::mbox::split(got).len().saturating_sub(1) as u64;
                let due = whole.iter().filter(|s| s.0.message <= ended).count();
                assert_eq!(
                    seen.borrow().len(),
                    due,
                    "sizes {sizes:?}, at byte {}",
                    got.len()
                );
                true
            },
        )
        .unwrap();
        assert_eq!(seen.into_inner(), whole, "sizes {sizes:?}");
        assert!(pauses.get() > 0, "sizes {sizes:?}");
        assert_eq!(
            stats.messages as usize,
            urlsift_mail::mbox::split(&data).len()
        );
    }
}

/// A reader that counts the bytes it gave.
struct Counted<R>(R, std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        self.1.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// Every input under tests/data (mail and not), as it is, with CRLF line
/// ends and after blank lines.
fn heads_to_judge() -> Vec<Vec<u8>> {
    fn walk(dir: &Path, out: &mut Vec<Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                let d = std::fs::read(&p).unwrap();
                out.push(d[..d.len().min(2 * urlsift_mail::HEAD)].to_vec());
            }
        }
    }
    let mut files = Vec::new();
    walk(Path::new("tests/data"), &mut files);
    files.extend(
        [
            &b"Note: see below\nSubject to change.\n"[..],
            b"12:00:01 GET /index.html\n12:00:02 GET /a\n",
            b"http://a.example/\nhttp://b.example/\n",
            b"From here on, text\nwith no header\n",
            b"From\nSubject: x\n",
            b"X-Spam: no\n folded\nSubject: hi\n\nbody\n",
        ]
        .map(<[u8]>::to_vec),
    );
    let mut out = Vec::new();
    for f in files {
        let crlf: Vec<u8> = f
            .iter()
            .flat_map(|&b| {
                if b == b'\n' {
                    vec![b'\r', b'\n']
                } else {
                    vec![b]
                }
            })
            .collect();
        out.push([&b"\n \n"[..], &f].concat());
        out.push(crlf);
        out.push(f);
    }
    out
}

/// A stream's head that paused early is judged at once when
/// `decided_early` says so, and then the same as the whole head: for every
/// prefix of every test input.
#[test]
fn a_head_decided_early_is_judged_as_the_whole() {
    let (mut decided, mut mail) = (0, 0);
    for data in heads_to_judge() {
        let whole = urlsift_mail::is_plain_text(&data);
        let mbox_whole = urlsift_mail::mbox::starts_like_mail(&data);
        for p in 0..data.len().min(urlsift_mail::HEAD) {
            let head = &data[..p];
            if urlsift_mail::mbox::decided_early(head) {
                decided += 1;
                mail += usize::from(mbox_whole);
                let at = String::from_utf8_lossy(head);
                assert_eq!(urlsift_mail::is_plain_text(head), whole, "{at:?}");
                assert_eq!(
                    urlsift_mail::mbox::starts_like_mail(head),
                    mbox_whole,
                    "{at:?}"
                );
            }
        }
    }
    // Both answers are given early, often.
    assert!(
        decided > 10_000 && mail > 1000 && decided - mail > 1000,
        "{decided} {mail}"
    );
}

/// A stream that pauses once, at any byte, is judged mail or not as the
/// whole is (`MailStats::not_mail`), with the same URLs: also when it does
/// not start with a `From ` line.
#[test]
fn a_pause_at_any_byte_keeps_the_mail_judgement() {
    let cases: [&[u8]; 4] = [
        b"Foo: a\nSubject: b\n\nsee http://a.example/\n",
        b"\n\n\n\n\nhello http://a.example/\n",
        b"\nFrom a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nhttp://a.example/\n",
        b"http://a.example/\nhttp://b.example/\n",
    ];
    let ex = Extractor::new();
    for data in cases {
        let mut whole: Seen = Vec::new();
        let want = scan_archive(
            &ex,
            data,
            |w, l, m| whole.push((w.clone(), l, m.url_str().into_owned())),
            |_| {},
        );
        for p in 1..data.len() {
            let mut seen: Seen = Vec::new();
            let sizes = [p, data.len()];
            let r = Pausing {
                data,
                sizes: &sizes,
                k: 0,
                at: 0,
                paused: true,
            };
            let got = scan_stream(&ex, r, 1 << 20, |w, l, m| {
                seen.push((w.clone(), l, m.url_str().into_owned()))
            })
            .unwrap();
            let at = format!("{:?} paused at {p}", String::from_utf8_lossy(data));
            assert_eq!(got.not_mail, want.not_mail, "{at}");
            assert_eq!(seen, whole, "{at}");
        }
    }
}

/// An mbox led by blank lines is split into its messages as without them,
/// from a file and from a stream.
#[test]
fn an_mbox_led_by_blank_lines_is_split() {
    let data = std::fs::read(format!("{OWN}/archive.mbox")).unwrap();
    let plain = scan_bytes(&data);
    let lead = b"\n\r\n  \n";
    let mut led = lead.to_vec();
    led.extend_from_slice(&data);
    let o = scan_bytes(&led);
    assert_eq!(o.stats.messages, plain.stats.messages);
    assert!(plain.stats.messages > 1);
    let shift = |w: &MailWhere| {
        let mut w = w.clone();
        w.message_offset -= lead.len() as u64;
        w.part_offset -= lead.len() as u64;
        w
    };
    let got: Vec<_> = o.urls.iter().map(|(w, u)| (shift(w), u.clone())).collect();
    assert_eq!(got, plain.urls);
    // A stream, read in small pieces, gives the same.
    let mut streamed = Vec::new();
    let stats = scan_stream(
        &Extractor::new(),
        std::io::Read::chain(&lead[..2], &led[2..]),
        3,
        |w, _, m| streamed.push((w.clone(), m.url_str().into_owned())),
    )
    .unwrap();
    assert_eq!(stats, o.stats);
    assert_eq!(streamed, o.urls);
}

/// A message the MIME parser fails on is reported at its own offset in
/// the file, not at the file's start.
#[test]
fn a_failed_parse_is_reported_at_its_message() {
    let bad = std::fs::read(format!("{OWN}/fuzz-mail-parser-panic.eml")).unwrap();
    let mut mbox = b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nhttp://a.example/\n\n\
From c@d Mon Jan  1 00:00:00 2024\n"
        .to_vec();
    let at = mbox.len() as u64;
    mbox.extend_from_slice(&bad);
    let o = scan_bytes(&mbox);
    assert_eq!(o.stats.messages, 2);
    // mail-parser panics only where overflows are checked (see above).
    if cfg!(debug_assertions) {
        let p = o
            .problems
            .iter()
            .find(|p| p.what.contains("MIME parser failed"))
            .expect("the parser failed");
        assert_eq!((p.message, p.offset), (2, at));
    }
}
