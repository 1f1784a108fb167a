//! HTML files through the command line: sniffed (or `--html`), their URL
//! attributes resolved against `<base href>` or `--base`, their text scanned
//! after character references are decoded, with byte offsets and lines in
//! the file. (Every test name holds `_cli_`: they run the binary.)

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_urlsift");

/// Run `urlsift args` in `dir`, with `stdin`; (stdout, stderr, exit code).
fn run(dir: &Path, args: &[&str], stdin: &[u8]) -> (Vec<u8>, String, i32) {
    let mut c = Command::new(BIN)
        .args(args)
        .current_dir(dir)
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

fn json_rows(out: &[u8]) -> Vec<Value> {
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

fn urls(rows: &[Value]) -> Vec<&str> {
    rows.iter().map(|r| r["url"].as_str().unwrap()).collect()
}

/// A directory holding `files`.
fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        std::fs::write(d.path().join(name), bytes).unwrap();
    }
    d
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

const PAGE: &[u8] = b"<!DOCTYPE html>
<html><head><base href=\"https://ex.org/docs/\"><title>T</title></head>
<body><p>See <a href=\"guide/a.html\">the guide</a> or http://text.example/p.
<img src=\"../img/i.png\" srcset=\"s1.png 1x, s2.png 2x\">
<a href='q?a=1&amp;b=2'>q</a> <a href=\"mailto:x@y.example\">m</a>
<script>var u = \"http://script.example/\";</script>
&lt;http://entity.example/x&gt;
</body></html>
";

/// Each row's offsets, line and `found` agree with the file.
fn check_places(doc: &[u8], rows: &[Value]) {
    for r in rows {
        let (s, e) = (
            r["start"].as_u64().unwrap() as usize,
            r["end"].as_u64().unwrap() as usize,
        );
        let written = std::str::from_utf8(&doc[s..e]).unwrap();
        let want = r["found"].as_str().or(r["url"].as_str()).unwrap();
        assert_eq!(written, want, "{r}");
        let line = 1 + doc[..s].iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(r["line"].as_u64(), Some(line), "{r}");
        for f in [
            "warc_target_uri",
            "warc_record_id",
            "warc_date",
            "warc_type",
            "warc_offset",
        ] {
            assert!(r[f].is_null(), "{f}: {r}");
        }
    }
}

#[test]
fn html_cli_base_href_resolves_attributes_in_document_order() {
    let d = tree(&[("page.html", PAGE)]);
    let (out, err, code) = run(d.path(), &["--format", "json", "page.html"], b"");
    assert_eq!(code, 0, "{err}");
    let rows = json_rows(&out);
    assert_eq!(
        urls(&rows),
        [
            "https://ex.org/docs/guide/a.html",
            "http://text.example/p",
            "https://ex.org/img/i.png",
            "https://ex.org/docs/s1.png",
            "https://ex.org/docs/s2.png",
            "https://ex.org/docs/q?a=1&b=2",
            "mailto:x@y.example",
            "http://script.example/",
            "http://entity.example/x",
        ]
    );
    let sources: Vec<(&str, Option<&str>)> = rows
        .iter()
        .map(|r| (r["source"].as_str().unwrap(), r["source_name"].as_str()))
        .collect();
    assert_eq!(sources[0], ("attribute", Some("a@href")));
    assert_eq!(sources[1], ("text", None));
    assert_eq!(sources[3], ("attribute", Some("img@srcset")));
    assert_eq!(rows[0]["found"], "guide/a.html");
    assert_eq!(rows[0]["style"], "quoted");
    assert_eq!(rows[1]["style"], "bare");
    check_places(PAGE, &rows);
    // `--base` does not override the page's own <base href>.
    let (again, _, _) = run(
        d.path(),
        &[
            "--format",
            "json",
            "--base",
            "http://other.example/",
            "page.html",
        ],
        b"",
    );
    assert_eq!(again, out);
    // Text output: the same URLs, with real line numbers.
    let (text, _, _) = run(d.path(), &["-n", "page.html"], b"");
    let text = String::from_utf8(text).unwrap();
    assert!(text.starts_with("3:https://ex.org/docs/guide/a.html\n3:http://text.example/p\n4:"));
}

const RELATIVE: &[u8] = b"<html>
<a href=\"a/b.html\">x</a> <a href=\"/root\">r</a> <a href=\"//net.example/n\">n</a>
<a href=\"https://abs.example/z\">z</a> text www.www.example and http://t.example/
<form action=\"../post\"></form>
</html>";

#[test]
fn html_cli_relative_links_resolve_against_the_base_option() {
    let d = tree(&[("rel.html", RELATIVE)]);
    let args = [
        "--format",
        "json",
        "--base",
        "http://h.example/d/e.html",
        "rel.html",
    ];
    let (out, err, code) = run(d.path(), &args, b"");
    assert_eq!(code, 0, "{err}");
    let rows = json_rows(&out);
    assert_eq!(
        urls(&rows),
        [
            "http://h.example/d/a/b.html",
            "http://h.example/root",
            "http://net.example/n",
            "https://abs.example/z",
            "www.www.example",
            "http://t.example/",
            "http://h.example/post",
        ]
    );
    assert_eq!(rows[4]["kind"], "www");
    check_places(RELATIVE, &rows);
}

#[test]
fn html_cli_without_a_base_relative_links_are_left_out() {
    let d = tree(&[("rel.html", RELATIVE)]);
    let (out, err, code) = run(d.path(), &["--format", "json", "rel.html"], b"");
    assert_eq!(code, 0, "{err}");
    let rows = json_rows(&out);
    // Absolute attributes and the text's URLs stay; the relative ones,
    // which name nothing without a base, are left out.
    assert_eq!(
        urls(&rows),
        [
            "https://abs.example/z",
            "www.www.example",
            "http://t.example/"
        ]
    );
    check_places(RELATIVE, &rows);
    // A <base href> that is itself relative, with no --base: still no base.
    let page = b"<html><base href=\"/x/\"><a href=\"y\">y</a> <a href=\"http://a.example/\">";
    let d = tree(&[("b.html", page)]);
    let (out, _, _) = run(d.path(), &["b.html"], b"");
    assert_eq!(out, b"http://a.example/\n");
}

#[test]
fn html_cli_entity_encoded_hrefs_are_decoded() {
    let page = b"<p><a href=\"http://a.example/?x=1&amp;y=2&#x41;&#66;&copy=3\">a</a>
<a href=\"&#104;ttp://b.example/&lt;p&gt;\">b</a> see http://c.example/?a&amp;b</p>";
    let d = tree(&[("e.html", page)]);
    let (out, err, code) = run(d.path(), &["--format", "json", "e.html"], b"");
    assert_eq!(code, 0, "{err}");
    let rows = json_rows(&out);
    assert_eq!(
        urls(&rows),
        [
            "http://a.example/?x=1&y=2AB&copy=3",
            "http://b.example/<p>",
            "http://c.example/?a&b",
        ]
    );
    assert_eq!(
        rows[0]["found"],
        "http://a.example/?x=1&amp;y=2&#x41;&#66;&copy=3"
    );
    assert_eq!(rows[2]["found"], "http://c.example/?a&amp;b");
    check_places(page, &rows);
}

#[test]
fn html_cli_gzip_zstd_and_stdin_pages_read_as_html() {
    let d = tree(&[
        ("page.html", PAGE),
        ("page.html.gz", &gzip(PAGE)),
        ("page.html.zst", &zstd::encode_all(PAGE, 1).unwrap()),
    ]);
    let args = |f: &'static str| ["--format", "json", "--base", "http://b.example/", f];
    let (want, err, code) = run(d.path(), &args("page.html"), b"");
    assert_eq!(code, 0, "{err}");
    let want = json_rows(&want);
    assert!(want.iter().any(|r| r["source"] == "attribute"));
    for (file, stdin) in [
        ("page.html.gz", &b""[..]),
        ("page.html.zst", b""),
        ("-", PAGE),
        ("-", &gzip(PAGE)),
    ] {
        let (got, err, code) = run(d.path(), &args(file), stdin);
        assert_eq!(code, 0, "{file}: {err}");
        let got = json_rows(&got);
        assert_eq!(got.len(), want.len(), "{file}");
        for (g, w) in got.iter().zip(&want) {
            let mut g = g.clone();
            g["file"] = w["file"].clone();
            assert_eq!(&g, w, "{file}");
        }
    }
    // --no-mmap reads the file as a stream: the same output.
    let (a, _, _) = run(d.path(), &["-n", "page.html"], b"");
    let (b, _, _) = run(d.path(), &["-n", "--no-mmap", "page.html"], b"");
    assert_eq!(a, b);
}

const NOT_SNIFFED: &[u8] = b"Notes, not a page: <a href=\"rel/x.html\">x</a>
and <a href=\"http://a.example/?q=1&amp;r=2\">y</a>\n";

#[test]
fn html_cli_html_forces_a_page_that_does_not_sniff() {
    let d = tree(&[("notes.txt", NOT_SNIFFED)]);
    // Sniffed as text: the text rules, which see no relative reference and
    // keep the `&amp;` as written.
    let (out, _, code) = run(d.path(), &["notes.txt"], b"");
    assert_eq!(code, 0);
    assert_eq!(out, b"http://a.example/?q=1&amp;r=2\n");
    let (out, err, code) = run(
        d.path(),
        &["--html", "--base", "http://b.example/", "notes.txt"],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "http://b.example/rel/x.html\nhttp://a.example/?q=1&r=2\n"
    );
    // Standard input too; and the last of --html / --no-html wins.
    let (out, _, _) = run(d.path(), &["--html", "-"], NOT_SNIFFED);
    assert_eq!(out, b"http://a.example/?q=1&r=2\n");
    let (out, _, _) = run(d.path(), &["--html", "--no-html", "-"], NOT_SNIFFED);
    assert_eq!(out, b"http://a.example/?q=1&amp;r=2\n");
    // Mail has its own HTML reading.
    let (_, err, code) = run(d.path(), &["--html", "--mail", "notes.txt"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("--mail"), "{err}");
}

#[test]
fn html_cli_no_html_gives_the_text_rules() {
    let d = tree(&[("page.html", PAGE), ("rel.html", RELATIVE)]);
    for f in ["page.html", "rel.html"] {
        let (out, err, code) = run(d.path(), &["--no-html", "--format", "json", f], b"");
        assert_eq!(code, 0, "{err}");
        let rows = json_rows(&out);
        let doc = std::fs::read(d.path().join(f)).unwrap();
        let alone: Vec<String> = urlsift_core::find(&doc)
            .map(|m| m.url_str().into_owned())
            .collect();
        assert_eq!(urls(&rows), alone, "{f}");
        assert!(rows.iter().all(|r| r.get("source").is_none()), "{f}");
    }
}

#[test]
fn html_cli_output_is_the_same_for_every_thread_count() {
    let mut big = b"<!doctype html><body>\n".to_vec();
    for i in 0..3000 {
        writeln!(
            big,
            "<p><a href=\"/p/{i}\">{i}</a> see http://t{i}.example/x &amp; <img src=i{i}.png>"
        )
        .unwrap();
    }
    let text = b"plain text http://a.example/ and <a href=\"x\">\n".repeat(500);
    let d = tree(&[
        ("a.html", PAGE),
        ("b.html", &big),
        ("c.txt", &text),
        ("d.html.gz", &gzip(&big)),
        ("e.html", RELATIVE),
    ]);
    let files = ["a.html", "b.html", "c.txt", "d.html.gz", "e.html"];
    let mut want: Option<Vec<u8>> = None;
    for j in ["-j1", "-j2", "-j8"] {
        for extra in [&[][..], &["--chunk-size", "1000"]] {
            let mut args = vec![j, "--format", "json", "--base", "http://b.example/"];
            args.extend_from_slice(extra);
            args.extend_from_slice(&files);
            let (out, err, code) = run(d.path(), &args, b"");
            assert_eq!(code, 0, "{err}");
            match &want {
                None => want = Some(out),
                Some(w) => assert!(w == &out, "{args:?}"),
            }
        }
    }
    let rows = json_rows(want.as_ref().unwrap());
    assert!(rows.len() > 9000);
    for (f, doc) in [("b.html", &big), ("e.html", &RELATIVE.to_vec())] {
        let mine: Vec<Value> = rows.iter().filter(|r| r["file"] == f).cloned().collect();
        check_places(doc, &mine);
    }
}

#[test]
fn html_cli_hostile_pages_do_not_panic() {
    let mut huge_attr = b"<html><a href=\"http://a.example/".to_vec();
    huge_attr.extend(std::iter::repeat_n(b'x', 3 << 20));
    huge_attr.extend_from_slice(b"\">x</a> http://after.example/");
    let mut deep = b"<p>".to_vec();
    deep.extend(b"<a href=".repeat(100_000));
    let pages: Vec<(&str, Vec<u8>)> = vec![
        (
            "truncated-tag.html",
            b"<html><a href=\"http://a.example/".to_vec(),
        ),
        ("truncated-attr.html", b"<html><a href=".to_vec()),
        ("lt-at-eof.html", b"<p>http://a.example/ <".to_vec()),
        ("lt-only.html", b"<p> <".to_vec()),
        ("amp-at-eof.html", b"<p>http://a.example/&".to_vec()),
        ("comment.html", b"<!-- http://in-comment.example/ ".to_vec()),
        ("script.html", b"<p><script>http://s.example/".to_vec()),
        (
            "nul.html",
            b"<p>\0<a\0href=\"\0http://n.example/\0\">\0http://t.example/\0".to_vec(),
        ),
        ("huge-attr.html", huge_attr),
        ("deep.html", deep),
        (
            "bad-utf8.html",
            b"<p><a href=\"http://a.example/\xff\xfe\">\xc3</a>".to_vec(),
        ),
        (
            "base-only.html",
            b"<base href=\"\xff:/\"><a href=\"x\">".to_vec(),
        ),
    ];
    let files: Vec<(&str, &[u8])> = pages.iter().map(|(n, b)| (*n, &b[..])).collect();
    let d = tree(&files);
    for (name, _) in &pages {
        for fmt in ["text", "json"] {
            let (out, err, code) = run(
                d.path(),
                &["--format", fmt, "--base", "http://b.example/", name],
                b"",
            );
            assert!(code == 0 || code == 1, "{name}: {code} {err}");
            assert!(
                !err.contains("panic") && !err.contains("internal error"),
                "{name}: {err}"
            );
            if fmt == "json" {
                let _ = json_rows(&out);
            }
        }
    }
    let (out, _, _) = run(d.path(), &["huge-attr.html"], b"");
    let out = String::from_utf8(out).unwrap();
    assert!(out.ends_with("\nhttp://after.example/\n") && out.len() > 3 << 20);
}

#[test]
fn html_cli_inner_spaces_are_kept_in_url_and_encoded_in_keys() {
    // A URL attribute keeps its inner spaces (WHATWG attribute rules); the
    // normal form and the de-duplication keys encode them, so the spaced
    // href and its encoded twin in the text are one URL.
    let doc = b"<!DOCTYPE html><a href=\"http://a.example/x y?q=a b\">t</a>\n\
        http://a.example/x%20y?q=a%20b\n";
    let dir = tree(&[("p.html", doc)]);
    let (out, _, code) = run(
        dir.path(),
        &["--format", "json", "--normalize", "p.html"],
        b"",
    );
    assert_eq!(code, 0);
    let rows = json_rows(&out);
    assert_eq!(
        urls(&rows),
        [
            "http://a.example/x y?q=a b",
            "http://a.example/x%20y?q=a%20b"
        ]
    );
    for r in &rows {
        assert_eq!(r["normalized"], "http://a.example/x%20y?q=a%20b", "{r}");
    }
    for level in ["scheme", "syntax", "surt", "whatwg"] {
        let (out, _, code) = run(
            dir.path(),
            &["--unique", "--dedup-key", level, "p.html"],
            b"",
        );
        assert_eq!(code, 0);
        assert_eq!(
            out.iter().filter(|&&b| b == b'\n').count(),
            1,
            "{level}: {}",
            String::from_utf8_lossy(&out)
        );
    }
    // The raw level compares the URLs as written: two.
    let (out, _, _) = run(
        dir.path(),
        &["--unique", "--dedup-key", "raw", "p.html"],
        b"",
    );
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 2);
}
