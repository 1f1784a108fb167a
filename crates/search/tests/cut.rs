//! `-m`, `-l` and `-q` are a cut where the records are taken in order: the
//! units of an input are formatted in parallel, and the first records, as
//! many as the input may take, are kept. The output is that of taking the
//! records one by one, for every kind of input and every mode, and the
//! scan stops soon after the cut.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use urlsift_core::Extractor;
use urlsift_printer::{CountBy, Format, Options};
use urlsift_search::input::Source;
use urlsift_search::run::{self, Config, List};

/// Text of `n` lines, each with an `http` URL, and every third line an
/// `https` one after it (left out by `--scheme http`).
fn text(n: usize) -> Vec<u8> {
    let mut t = Vec::new();
    for i in 0..n {
        t.extend_from_slice(format!("line {i} http://h{}.example/p{i}", i % 7).as_bytes());
        if i % 3 == 0 {
            t.extend_from_slice(format!(" and https://s{i}.example/").as_bytes());
        }
        t.push(b'\n');
    }
    t
}

/// An mbox of `n` messages, each with two URLs.
fn mbox(n: usize) -> Vec<u8> {
    let mut t = Vec::new();
    for i in 0..n {
        t.extend_from_slice(
            format!(
                "From a@b.example Mon Jan  1 00:00:00 2024\nFrom: a@b.example\n\
                 Subject: m{i}\n\nsee http://m{i}.example/a and\nhttp://n{}.example/b\n\n",
                i % 5
            )
            .as_bytes(),
        );
    }
    t
}

/// A web archive of `n` responses, each an HTML page with three links.
fn warc(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        let body = format!(
            "<html><a href=\"http://w{i}.example/1\">a</a> <a href=/two>b</a> \
             <a href=\"http://x{}.example/3\">c</a></html>",
            i % 4
        );
        let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
        http.extend_from_slice(body.as_bytes());
        out.extend_from_slice(
            format!(
                "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://t{i}.example/\r\n\
                 Content-Length: {}\r\n\r\n",
                http.len()
            )
            .as_bytes(),
        );
        out.extend_from_slice(&http);
        out.extend_from_slice(b"\r\n\r\n");
    }
    out
}

/// Many small chunks and two threads, so a cut lands inside a unit, and
/// units are formatted ahead of it.
fn config(opts: Options) -> Config<'static> {
    Config {
        threads: 2,
        chunk_size: 256,
        ..Config::new(opts, Extractor::new())
    }
}

/// The run's output, `found` and exit status.
fn run_one(cfg: &Config<'_>, path: &Path) -> (String, u64, u8) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let sum = run::run(cfg, &[Source::Path(path.into())], &mut out, &mut err);
    assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
    let out = String::from_utf8(out).unwrap();
    (out, sum.found, sum.exit_code(cfg.quiet))
}

/// The inputs: text (mapped and streamed), mail and a web archive.
fn inputs(dir: &Path) -> Vec<(&'static str, std::path::PathBuf, bool)> {
    let mut v = Vec::new();
    for (name, data, mail) in [
        ("a.txt", text(400), false),
        ("a.mbox", mbox(120), true),
        ("a.warc", warc(150), false),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, data).unwrap();
        v.push((name, p, mail));
    }
    v
}

#[test]
fn the_first_records_are_kept_in_every_kind_and_format() {
    let dir = tempfile::tempdir().unwrap();
    let mail = urlsift_mail::MailRun::default();
    for (name, path, is_mail) in inputs(dir.path()) {
        for mmap in [true, false] {
            for (format, line_number, vimgrep) in [
                (Format::Text, true, false),
                (Format::Json, false, false),
                (Format::Text, false, true),
            ] {
                let opts = Options {
                    format,
                    line_number,
                    byte_offset: line_number || vimgrep,
                    ..Options::default()
                };
                let mut cfg: Config<'_> = config(opts);
                cfg.mmap = mmap;
                cfg.column = vimgrep;
                cfg.schemes = vec!["http".into()];
                cfg.mail = is_mail.then_some(&mail);
                let (all, total, _) = run_one(&cfg, &path);
                let lines: Vec<&str> = all.lines().collect();
                assert_eq!(lines.len() as u64, total, "{name}");
                assert!(total > 200, "{name}: {total}");
                for k in [1, 5, 37, 199] {
                    let what = format!("{name} mmap={mmap} {format:?} vimgrep={vimgrep} -m {k}");
                    cfg.max_count = Some(k);
                    let (out, found, status) = run_one(&cfg, &path);
                    let want: String = lines[..k as usize]
                        .iter()
                        .map(|l| format!("{l}\n"))
                        .collect();
                    assert_eq!(out, want, "{what}");
                    assert_eq!((found, status), (k, 0), "{what}");
                    cfg.opts.count = true;
                    let (out, found, _) = run_one(&cfg, &path);
                    let count = match format {
                        Format::Json => {
                            format!("{{\"file\":\"{}\",\"count\":{k}}}\n", path.display())
                        }
                        _ => format!("{k}\n"),
                    };
                    assert_eq!((out, found), (count, k), "{what} -c");
                    cfg.opts.count = false;
                }
                cfg.max_count = None;
            }
        }
    }
}

#[test]
fn unique_counts_and_shards_take_the_records_before_the_cut() {
    // The records before the cut, then de-duplicated or counted: as if the
    // input ended after the last one taken.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.txt");
    let full = text(400);
    for opts in [
        Options {
            unique: true,
            ..Options::default()
        },
        Options {
            count_by: Some(CountBy::Host),
            ..Options::default()
        },
        Options {
            unique: true,
            format: Format::Json,
            ..Options::default()
        },
    ] {
        for mmap in [true, false] {
            for k in [3usize, 40, 170] {
                let mut cfg = config(opts.clone());
                cfg.mmap = mmap;
                cfg.max_count = Some(k as u64);
                // Line k holds the k-th `http` URL: the text to its end.
                let end = full
                    .iter()
                    .enumerate()
                    .filter(|&(_, &b)| b == b'\n')
                    .nth(k - 1)
                    .map(|(i, _)| i + 1)
                    .unwrap();
                cfg.schemes = vec!["http".into()];
                std::fs::write(&path, &full).unwrap();
                let (cut_http, ..) = run_one(&cfg, &path);
                std::fs::write(&path, &full[..end]).unwrap();
                cfg.max_count = None;
                let (prefix_http, ..) = run_one(&cfg, &path);
                assert_eq!(cut_http, prefix_http, "{opts:?} mmap={mmap} -m {k}");
                assert!(!cut_http.is_empty());
            }
        }
    }
}

#[test]
fn list_and_quiet_take_one_record_and_stop() {
    let dir = tempfile::tempdir().unwrap();
    let mail = urlsift_mail::MailRun::default();
    for (name, path, is_mail) in inputs(dir.path()) {
        for mmap in [true, false] {
            let mut cfg: Config<'_> = config(Options::default());
            cfg.mmap = mmap;
            cfg.mail = is_mail.then_some(&mail);
            cfg.list = Some(List::WithMatches);
            let (out, found, status) = run_one(&cfg, &path);
            assert_eq!(
                (out, found, status),
                (format!("{}\n", path.display()), 1, 0)
            );
            cfg.list = Some(List::WithoutMatch);
            let (out, found, status) = run_one(&cfg, &path);
            assert_eq!((out.as_str(), found, status), ("", 0, 1), "{name}");
            cfg.list = None;
            cfg.quiet = true;
            let (out, found, status) = run_one(&cfg, &path);
            assert!(out.is_empty() && found > 0 && status == 0, "{name}");
        }
    }
}

/// Sets a run's cut.
type Cut = fn(&mut Config<'_>);

#[test]
fn a_mapped_file_is_read_no_further_than_a_segment_past_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    let data = text(40_000);
    std::fs::write(&path, &data).unwrap();
    let done = AtomicU64::new(0);
    let progress = |n: u64| {
        done.fetch_add(n, Ordering::Relaxed);
    };
    let cases: [(&str, Cut); 3] = [
        ("-m 1", |c| c.max_count = Some(1)),
        ("-l", |c| c.list = Some(List::WithMatches)),
        ("-q", |c| c.quiet = true),
    ];
    for (what, set) in cases {
        let mut cfg: Config<'_> = config(Options::default());
        cfg.progress = Some(&progress);
        set(&mut cfg);
        done.store(0, Ordering::Relaxed);
        let (_, found, status) = run_one(&cfg, &path);
        assert!(found > 0 && status == 0, "{what}");
        // A segment is two chunks per thread (up to the next cut point).
        let read = done.load(Ordering::Relaxed);
        assert!(read < 8 << 10, "{what}: {read} of {} bytes", data.len());
    }
}
