//! The links of a web archive record are handed to the output in batches
//! of bounded size, however many links the record has, and the output is
//! the same as formatting them one by one.

use std::io::{self, Write};

use urlsift_core::Extractor;
use urlsift_printer::{Format, Options};
use urlsift_search::input::Source;
use urlsift_search::run::{self, BATCH, Config};

/// Output that keeps what is written and the largest single write.
#[derive(Default)]
struct Largest {
    bytes: Vec<u8>,
    largest: usize,
}

impl Write for Largest {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.largest = self.largest.max(buf.len());
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn response(target: &str, body: &[u8]) -> Vec<u8> {
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
    http.extend_from_slice(body);
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {target}\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    r.extend_from_slice(&http);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn run(cfg: &Config<'_>, src: &Source) -> Largest {
    let (mut out, mut err) = (Largest::default(), Vec::new());
    let sum = run::run(cfg, std::slice::from_ref(src), &mut out, &mut err);
    assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
    assert_eq!(sum.exit_code(false), 0);
    out
}

#[test]
fn a_link_dense_record_is_handed_on_in_bounded_batches() {
    // Between small pages, one of 25,000 links interleaved with text URLs:
    // about 1 MB of HTML, some 24 MB of JSON records.
    let dense: Vec<u8> = (0..25_000)
        .flat_map(|i| format!("<a href=\"/p/{i}\">x</a> http://t{i}.example/\n").into_bytes())
        .collect();
    let mut warc = Vec::new();
    for i in 0..3 {
        let small = format!("<a href=\"/s{i}\">s</a> http://small{i}.example/");
        warc.extend(response(&format!("http://a{i}.example/"), small.as_bytes()));
    }
    warc.extend(response("http://dense.example/", &dense));
    for i in 3..6 {
        let small = format!("<a href=\"/s{i}\">s</a> http://small{i}.example/");
        warc.extend(response(&format!("http://a{i}.example/"), small.as_bytes()));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dense.warc");
    std::fs::write(&path, &warc).unwrap();
    let src = Source::Path(path);
    let opts = Options {
        format: Format::Json,
        ..Options::default()
    };
    let cfg = Config {
        threads: 2,
        ..Config::new(opts, Extractor::new())
    };
    let got = run(&cfg, &src);
    let total = got.bytes.len();
    assert!(total > 20 << 20, "{total}");
    // At most 16 MiB (and a record) formatted for one record on the pool,
    // then a batch at a time.
    let bound = (16 << 20) + BATCH;
    assert!(
        got.largest <= bound,
        "a batch of {} bytes, more than {bound}",
        got.largest
    );

    // The same bytes as one by one (the path `-m` takes) and on one thread.
    let serial = Config {
        max_count: Some(u64::MAX),
        ..Config::new(cfg.opts.clone(), Extractor::new())
    };
    let want = run(&serial, &src);
    assert!(want.bytes == got.bytes, "serial");
    let one = Config {
        threads: 1,
        ..Config::new(cfg.opts.clone(), Extractor::new())
    };
    assert!(run(&one, &src).bytes == got.bytes, "one thread");
    let rows = got.bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty());
    let urls: Vec<String> = rows
        .map(|l| serde_json::from_slice::<serde_json::Value>(l).unwrap()["url"].to_string())
        .collect();
    assert_eq!(urls.len(), 6 * 2 + 50_000);
    assert_eq!(urls[6], "\"http://dense.example/p/0\"");
    assert_eq!(urls[7], "\"http://t0.example/\"");
    assert_eq!(urls[6 + 50_000 - 1], "\"http://t24999.example/\"");
}
