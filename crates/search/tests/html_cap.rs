//! An HTML input longer than `Config::max_html`: HTML up to its last newline
//! (or space, `<`, `>`; never into a tag that ends past the cap)
//! before the cap, the text rules after it, with offsets and lines in the
//! whole input; the same for a mapped file, a stream and a gzip stream.

use std::io::Write;

use urlsift_core::Extractor;
use urlsift_printer::{Format, Options};
use urlsift_search::input::Source;
use urlsift_search::run::{self, Config};

fn rows(cfg: &Config<'_>, src: Source) -> (Vec<serde_json::Value>, u8) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let sum = run::run(cfg, &[src], &mut out, &mut err);
    assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
    let rows = out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    (rows, sum.exit_code(false))
}

#[test]
fn past_the_cap_the_text_rules_read_the_rest() {
    let mut page = b"<!DOCTYPE html>\n".to_vec();
    for i in 0..40 {
        writeln!(page, "<a href=\"/a{i}\">see http://t{i}.example/</a>").unwrap();
    }
    let cap = page.len() / 2;
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("p.html");
    std::fs::write(&plain, &page).unwrap();
    let gz = dir.path().join("p.html.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&page).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();

    let opts = Options {
        format: Format::Json,
        ..Options::default()
    };
    let mut cfg = Config::new(opts, Extractor::new());
    cfg.base = Some("http://b.example/".into());
    cfg.max_html = cap;
    let (want, code) = rows(&cfg, Source::Path(plain.clone()));
    assert_eq!(code, 0);
    // HTML up to the last newline before the cap.
    let cut = page[..cap].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let html: Vec<_> = want.iter().filter(|r| r.get("source").is_some()).collect();
    let text: Vec<_> = want.iter().filter(|r| r.get("source").is_none()).collect();
    let lines_html = page[..cut].iter().filter(|&&b| b == b'\n').count();
    // Each line before the cut has an attribute and a text link; after it,
    // the text rules see the text URL and no relative reference.
    assert_eq!(html.len(), 2 * (lines_html - 1));
    assert_eq!(text.len(), 40 - (lines_html - 1));
    assert!(
        html.iter()
            .all(|r| (r["end"].as_u64().unwrap() as usize) <= cut)
    );
    assert_eq!(html[0]["url"], "http://b.example/a0");
    for r in &want {
        let (s, e) = (
            r["start"].as_u64().unwrap() as usize,
            r["end"].as_u64().unwrap() as usize,
        );
        let written = r["found"].as_str().or(r["url"].as_str()).unwrap();
        assert_eq!(std::str::from_utf8(&page[s..e]).unwrap(), written);
        let line = 1 + page[..s].iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(r["line"].as_u64(), Some(line), "{r}");
    }
    let first_text = cut
        + page[cut..]
            .windows(7)
            .position(|w| w == b"http://")
            .unwrap();
    assert_eq!(text[0]["start"].as_u64().unwrap() as usize, first_text);

    // A stream, and a gzip stream, cut at the same place.
    for (src, mmap) in [(Source::Path(plain), false), (Source::Path(gz), true)] {
        cfg.mmap = mmap;
        let (got, _) = rows(&cfg, src);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            let mut g = g.clone();
            g["file"] = w["file"].clone();
            assert_eq!(&g, w);
        }
    }

    // Under the cap, the whole page is HTML.
    cfg.max_html = page.len();
    let (all, _) = rows(&cfg, Source::Path(dir.path().join("p.html.gz")));
    assert_eq!(all.len(), 80);
    assert!(all.iter().all(|r| r.get("source").is_some()));
}

/// With no newline before the cap, the cut is at a space, `<` or `>`, and
/// before a tag it would end inside: no URL and no tag is cut in two,
/// for a mapped file and a stream alike.
#[test]
fn a_cap_without_a_newline_cuts_no_url_or_tag_in_two() {
    let page = b"<!DOCTYPE html><p>see http://first.example/a/long/path and \
        <a href=\"http://tag.example/x/y/z\">t</a> then http://last.example/p"
        .to_vec();
    let url = |u: &str| {
        page.windows(u.len())
            .position(|w| w == u.as_bytes())
            .unwrap()
    };
    let in_first = url("http://first.example/") + 10;
    let in_tag = url("<a href=") + 12;
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("p.html");
    std::fs::write(&plain, &page).unwrap();
    for cap in [in_first, in_tag] {
        for mmap in [true, false] {
            let opts = Options {
                format: Format::Json,
                ..Options::default()
            };
            let mut cfg = Config::new(opts, Extractor::new());
            cfg.max_html = cap;
            cfg.mmap = mmap;
            let (mut out, mut err) = (Vec::new(), Vec::new());
            run::run(&cfg, &[Source::Path(plain.clone())], &mut out, &mut err);
            assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
            let rows: Vec<serde_json::Value> = out
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| serde_json::from_slice(l).unwrap())
                .collect();
            let urls: Vec<&str> = rows.iter().map(|r| r["url"].as_str().unwrap()).collect();
            assert_eq!(
                urls,
                [
                    "http://first.example/a/long/path",
                    "http://tag.example/x/y/z",
                    "http://last.example/p"
                ],
                "cap {cap}"
            );
            for r in &rows {
                let s = r["start"].as_u64().unwrap() as usize;
                assert!(page[s..].starts_with(r["url"].as_str().unwrap().as_bytes()));
            }
        }
    }
}
