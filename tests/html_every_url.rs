//! Every URL of an HTML document, through the command line: a test per
//! kind of place a URL is written in (URL attributes, CSS, other attribute
//! values, scripts, styles, comments, text), for an HTML file and for the
//! same page as a web archive record, with `source` and `source_name`;
//! `--links-only` keeps the links; `--no-html`'s absolute URLs are among
//! the default reading's. (Every test name holds `_cli_`: they run the
//! binary.)

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_urlsift");
const BASE: &str = "https://base.example/d/page.html";

/// `(place in the page, url, source, source_name)`: a URL is written once
/// in each place, and read so.
const ROWS: &[(&str, &str, &str, Option<&str>)] = &[
    (
        r#"<meta property="og:image" content="https://img.example/a.png">"#,
        "https://img.example/a.png",
        "attribute",
        Some("meta@content"),
    ),
    (
        r#"<meta property="og:url" content="/canonical">"#,
        "https://base.example/canonical",
        "attribute",
        Some("meta@content"),
    ),
    (
        r#"<meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/">"#,
        "https://docutils.sourceforge.io/",
        "attribute-text",
        Some("meta@content"),
    ),
    (
        r#"<svg xmlns="http://www.w3.org/2000/svg"></svg>"#,
        "http://www.w3.org/2000/svg",
        "attribute-text",
        Some("svg@xmlns"),
    ),
    (
        r#"<svg><a xlink:href="../svg/x.svg">s</a></svg>"#,
        "https://base.example/svg/x.svg",
        "attribute",
        Some("a@xlink:href"),
    ),
    (
        r##"<svg><use href="#icon"/></svg>"##,
        "https://base.example/d/page.html#icon",
        "attribute",
        Some("use@href"),
    ),
    (
        r#"<div data-src="https://data.example/x">d</div>"#,
        "https://data.example/x",
        "attribute-text",
        Some("div@data-src"),
    ),
    (
        r#"<script>var u = "https://script.example/api?x=1";</script>"#,
        "https://script.example/api?x=1",
        "script",
        None,
    ),
    (
        r#"<style>body{background:url(https://css.example/bg.png)}</style>"#,
        "https://css.example/bg.png",
        "css",
        Some("style"),
    ),
    (
        r#"<style>.a{background:url("../img/r.png")}</style>"#,
        "https://base.example/img/r.png",
        "css",
        Some("style"),
    ),
    (
        r#"<style>/* from https://style.example/theme */ p{}</style>"#,
        "https://style.example/theme",
        "style",
        None,
    ),
    (
        r#"<div style="background-image:url('img/bg.png')">x</div>"#,
        "https://base.example/d/img/bg.png",
        "css",
        Some("div@style"),
    ),
    (
        r#"<!-- https://comment.example/ -->"#,
        "https://comment.example/",
        "comment",
        None,
    ),
    (
        r#"<a href="/rel/path">r</a>"#,
        "https://base.example/rel/path",
        "attribute",
        Some("a@href"),
    ),
    (
        r#"<a href="/x" ping="https://ping.example/p">r</a>"#,
        "https://ping.example/p",
        "attribute",
        Some("a@ping"),
    ),
    (
        r#"<div itemscope itemtype="https://schema.org/Person">x</div>"#,
        "https://schema.org/Person",
        "attribute",
        Some("div@itemtype"),
    ),
    (
        r#"<div itemscope itemid="urn:isbn:0-330-34032-8">x</div>"#,
        "urn:isbn:0-330-34032-8",
        "attribute",
        Some("div@itemid"),
    ),
    (
        r#"<p>see http://text.example/p.</p>"#,
        "http://text.example/p",
        "text",
        None,
    ),
];

fn run(args: &[&str], stdin: &[u8]) -> (Vec<u8>, String, i32) {
    let mut c = Command::new(BIN)
        .args(args)
        .env_remove("URLSIFT_ISA")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = c.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let o = c.wait_with_output().unwrap();
    feeder.join().unwrap();
    (
        o.stdout,
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code().unwrap_or(-1),
    )
}

fn rows(out: &[u8]) -> Vec<Value> {
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

fn page(place: &str) -> Vec<u8> {
    format!("<!DOCTYPE html>\n<html><head><title>t</title></head><body>\n{place}\n</body></html>\n")
        .into_bytes()
}

/// `html` as the HTTP response of a web archive record for [`BASE`].
fn warc(html: &[u8]) -> Vec<u8> {
    let mut block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
    block.extend_from_slice(html);
    let mut rec = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {BASE}\r\n\
         WARC-Record-ID: <urn:uuid:1>\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    rec.extend_from_slice(&block);
    rec.extend_from_slice(b"\r\n\r\n");
    rec
}

/// The input kinds: the page as an HTML file (with `--base`), and as a
/// web archive record (its target URI the base).
fn inputs(place: &str) -> [(&'static str, Vec<u8>, Vec<&'static str>); 2] {
    let html = page(place);
    let rec = warc(&html);
    [("file", html, vec!["--base", BASE]), ("warc", rec, vec![])]
}

fn read(input: &[u8], extra: &[&str], more: &[&str]) -> Vec<Value> {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    args.extend_from_slice(more);
    args.push("-");
    let (out, err, code) = run(&args, input);
    assert!(code == 0 || code == 1, "{code}: {err}");
    rows(&out)
}

#[test]
fn html_every_url_cli_each_place_in_a_file_and_a_record() {
    for &(place, url, source, name) in ROWS {
        for (kind, input, extra) in inputs(place) {
            let got = read(&input, &extra, &[]);
            let hits: Vec<&Value> = got.iter().filter(|r| r["url"] == url).collect();
            assert_eq!(hits.len(), 1, "{kind}: {place}: {got:#?}");
            let r = hits[0];
            assert_eq!(r["source"], source, "{kind}: {place}: {r}");
            assert_eq!(r["source_name"].as_str(), name, "{kind}: {place}: {r}");
            // The offsets span the URL as written in the page.
            let (s, e) = (
                r["start"].as_u64().unwrap() as usize,
                r["end"].as_u64().unwrap() as usize,
            );
            let html = page(place);
            let written = std::str::from_utf8(&html[s..e]).unwrap();
            let want = r["found"].as_str().unwrap_or(url);
            assert_eq!(written, want, "{kind}: {place}: {r}");
        }
    }
}

#[test]
fn html_every_url_cli_links_only_keeps_the_links() {
    for &(place, url, source, _) in ROWS {
        for (kind, input, extra) in inputs(place) {
            let got = read(&input, &extra, &["--links-only"]);
            let found = got.iter().any(|r| r["url"] == url);
            let link = matches!(source, "attribute" | "css" | "text");
            assert_eq!(found, link, "{kind}: {place}: {got:#?}");
        }
    }
}

#[test]
fn html_every_url_cli_no_html_finds_nothing_more() {
    // All the places in one page: every absolute URL the text rules find
    // is also read from the HTML.
    let all: String = ROWS.iter().map(|r| r.0).collect::<Vec<_>>().join("\n");
    let html = page(&all);
    let (text, _, _) = run(&["--no-html", "-"], &html);
    let (doc, err, code) = run(&["--base", BASE, "-"], &html);
    assert_eq!(code, 0, "{err}");
    let doc = String::from_utf8(doc).unwrap();
    let text = String::from_utf8(text).unwrap();
    for u in text.lines().filter(|u| u.contains(':')) {
        assert!(doc.lines().any(|d| d == u), "{u} missing from:\n{doc}");
    }
    // And every row's URL once, in document order.
    let want: Vec<&str> = ROWS.iter().map(|r| r.1).collect();
    let got: Vec<&str> = doc.lines().filter(|u| want.contains(u)).collect();
    assert_eq!(got, want);
}

/// WHATWG's attribute-value rules for URL attributes: leading and trailing
/// C0 controls and spaces stripped, tabs and line breaks inside removed (a
/// wrapped `href` is one URL), inner spaces kept as written.
#[test]
fn html_every_url_cli_url_attributes_by_whatwg_rules() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "<a href=\"http://example.com/a/\n   b.html\">w</a>",
            "http://example.com/a/   b.html",
            "http://example.com/a/\n   b.html",
        ),
        (
            "<a href=\"\u{1} \thttps://lead.example/x\r\n\">l</a>",
            "https://lead.example/x",
            "https://lead.example/x",
        ),
        (
            "<a href=\"https://wrap.example/long/\r\npath?x=1&amp;\ty=2\">t</a>",
            "https://wrap.example/long/path?x=1&y=2",
            "https://wrap.example/long/\r\npath?x=1&amp;\ty=2",
        ),
        (
            "<a href=\"mailto:web@example.org?subject=Site Feedback\">m</a>",
            "mailto:web@example.org?subject=Site Feedback",
            "mailto:web@example.org?subject=Site Feedback",
        ),
        (
            "<img src=\" img/a b.png \">",
            "https://base.example/d/img/a b.png",
            "img/a b.png",
        ),
    ];
    for &(place, url, written) in cases {
        for (kind, input, extra) in inputs(place) {
            let got = read(&input, &extra, &[]);
            let links: Vec<&Value> = got.iter().filter(|r| r["source"] == "attribute").collect();
            assert_eq!(links.len(), 1, "{kind}: {place:?}: {got:#?}");
            let r = links[0];
            assert_eq!(r["url"], url, "{kind}: {place:?}");
            let (s, e) = (
                r["start"].as_u64().unwrap() as usize,
                r["end"].as_u64().unwrap() as usize,
            );
            let html = page(place);
            assert_eq!(&html[s..e], written.as_bytes(), "{kind}: {place:?}: {r}");
            assert_eq!(
                r["found"].as_str().unwrap_or(url),
                written,
                "{kind}: {place:?}"
            );
        }
    }
}

#[test]
fn html_every_url_cli_a_base_that_is_not_absolute_is_a_usage_error() {
    for bad in ["notabase", " http://lead.example/", "rel/path"] {
        for (kind, input, _) in inputs("<a href=/x>x</a>") {
            let (out, err, code) = run(&["--base", bad, "-"], &input);
            assert_eq!(code, 2, "{kind}: {bad:?}: {err}");
            assert!(out.is_empty(), "{kind}: {bad:?}");
            // The message `resolve` gives for the same base.
            let (_, resolve_err, resolve_code) = run(&["resolve", bad, "x"], b"");
            assert_eq!(resolve_code, 2);
            let why = resolve_err.rsplit(": ").next().unwrap().trim();
            assert!(
                err.starts_with(&format!("urlsift: --base {bad:?}: ")) && err.trim().ends_with(why),
                "{kind}: {bad:?}: {err} / {resolve_err}"
            );
        }
    }
}

/// `urlsift --base BASE -` fed `parts` with a pause after each but the last.
fn run_paused(parts: &[&[u8]]) -> (String, i32) {
    let mut c = Command::new(BIN)
        .args(["--base", BASE, "-"])
        .env_remove("URLSIFT_ISA")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = c.stdin.take().unwrap();
    let parts: Vec<Vec<u8>> = parts.iter().map(|p| p.to_vec()).collect();
    let feeder = std::thread::spawn(move || {
        for (k, p) in parts.iter().enumerate() {
            input.write_all(p).unwrap();
            input.flush().unwrap();
            if k + 1 < parts.len() {
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
        }
    });
    let o = c.wait_with_output().unwrap();
    feeder.join().unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code().unwrap_or(-1),
    )
}

#[test]
fn html_every_url_cli_a_bom_and_a_pause_still_sniff_as_html() {
    let rest: &[u8] = b">\n<a href=\"/rel\">r</a>\n";
    for head in [
        &b"\xef\xbb\xbf<!DOCTYPE HTML"[..],
        b"\xef\xbb\xbf  <html",
        b"<!DOCTYPE HTML",
    ] {
        let (paused, code) = run_paused(&[head, rest]);
        let (whole, _) = run_paused(&[&[head, rest].concat()]);
        assert_eq!(code, 0, "{head:?}");
        assert_eq!(paused, "https://base.example/rel\n", "{head:?}");
        assert_eq!(paused, whole, "{head:?}");
    }
}

/// `html` as a web archive record whose HTTP `Content-Type` is `ct`.
fn warc_typed(html: &[u8], ct: &str) -> Vec<u8> {
    let mut block = format!("HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\n\r\n").into_bytes();
    block.extend_from_slice(html);
    let mut rec = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {BASE}\r\n\
         WARC-Record-ID: <urn:uuid:2>\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    rec.extend_from_slice(&block);
    rec.extend_from_slice(b"\r\n\r\n");
    rec
}

/// Windows-1251 "Путь" and "Текст".
const PUT: &[u8] = b"\xcf\xf3\xf2\xfc";
const TEKST: &[u8] = b"\xd2\xe5\xea\xf1\xf2";

fn cp1251_page(meta: bool) -> Vec<u8> {
    [
        &b"<!DOCTYPE html>"[..],
        if meta {
            b"<meta charset=\"windows-1251\">"
        } else {
            b""
        },
        b"<a href=\"https://ex.ru/",
        PUT,
        b"\">x</a> https://ex.ru/",
        TEKST,
        b"\n",
    ]
    .concat()
}

fn utf16(s: &str, le: bool) -> Vec<u8> {
    let mut out = if le {
        vec![0xff, 0xfe]
    } else {
        vec![0xfe, 0xff]
    };
    for u in s.encode_utf16() {
        out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
    }
    out
}

/// The URLs and their spans in the input as stored.
fn url_spans(out: &[u8]) -> Vec<(String, usize, usize)> {
    rows(out)
        .iter()
        .map(|r| {
            (
                r["url"].as_str().unwrap().to_owned(),
                r["start"].as_u64().unwrap() as usize,
                r["end"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

#[test]
fn html_every_url_cli_pages_are_read_in_their_charset() {
    let want = ["https://ex.ru/Путь", "https://ex.ru/Текст"];
    // A <meta charset>: a file and a record (whose header names none).
    let page = cp1251_page(true);
    for (kind, input, extra) in [
        ("file", page.clone(), vec!["--base", BASE]),
        ("warc", warc(&page), vec![]),
    ] {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(&extra);
        args.push("-");
        let (out, err, code) = run(&args, &input);
        assert_eq!(code, 0, "{kind}: {err}");
        let got = url_spans(&out);
        let urls: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(urls, want, "{kind}");
        // Offsets in the page as stored (a record's: in its payload).
        let (_, s, e) = &got[0];
        assert_eq!(
            &page[*s..*e],
            [&b"https://ex.ru/"[..], PUT].concat(),
            "{kind}"
        );
        let (_, s, e) = &got[1];
        assert_eq!(
            &page[*s..*e],
            [&b"https://ex.ru/"[..], TEKST].concat(),
            "{kind}"
        );
    }
    // The HTTP header's charset, with no <meta>; it comes before a <meta>.
    for page in [
        cp1251_page(false),
        [&b"<meta charset=koi8-r>"[..], &cp1251_page(false)].concat(),
    ] {
        let (out, err, code) = run(
            &["--format", "json", "-"],
            &warc_typed(&page, "text/html; charset=windows-1251"),
        );
        assert_eq!(code, 0, "{err}");
        let got = url_spans(&out);
        let urls: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(urls, want);
    }
    // UTF-16 with a byte order mark, either byte order: a file and a record.
    let text = "<!DOCTYPE html><p><a href=\"/é\">x</a> see http://u16.example/ü</p>\n";
    for le in [true, false] {
        let page = utf16(text, le);
        for (kind, input, extra) in [
            ("file", page.clone(), vec!["--base", BASE]),
            ("warc", warc(&page), vec![]),
        ] {
            let mut args = vec!["--format", "json"];
            args.extend_from_slice(&extra);
            args.push("-");
            let (out, err, code) = run(&args, &input);
            assert_eq!(code, 0, "{kind} {le}: {err}");
            let got = url_spans(&out);
            let urls: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
            assert_eq!(
                urls,
                ["https://base.example/é", "http://u16.example/ü"],
                "{kind} {le}"
            );
            let (_, s, e) = &got[1];
            assert_eq!(
                page[*s..*e],
                utf16("http://u16.example/ü", le)[2..],
                "{kind} {le}"
            );
        }
    }
}

#[test]
fn html_every_url_cli_an_unknown_charset_is_a_warning() {
    let page = b"<!DOCTYPE html><meta charset=\"klingon\"><a href=\"https://k.example/\">k</a>\n";
    for (kind, input, extra) in [
        ("file", page.to_vec(), vec!["--base", BASE]),
        ("warc", warc(page), vec![]),
        (
            "warc header",
            warc_typed(
                b"<!DOCTYPE html><a href=/h>h</a>",
                "text/html; charset=x-nope",
            ),
            vec![],
        ),
    ] {
        let mut args = extra.clone();
        args.push("-");
        let (out, err, code) = run(&args, &input);
        assert_eq!(code, 0, "{kind}: {err}");
        assert!(!out.is_empty(), "{kind}");
        assert!(
            err.contains("unknown charset") && err.contains("read as UTF-8"),
            "{kind}: {err}"
        );
    }
}
