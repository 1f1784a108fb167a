//! Archives as other tools write them: each leniency reads what is
//! readable and says so with the record's offset.

use std::io::Write;

use urlsift_warc::{BodyKind, LinkOptions, Reader, Record, Severity, body_kind, record_links};

fn response_with(version: &str, target: &str, http: &[u8], eol: &str) -> Vec<u8> {
    let mut r = format!(
        "{version}{eol}WARC-Type: response{eol}WARC-Target-URI: {target}{eol}\
         Content-Type: application/http; msgtype=response{eol}Content-Length: {}{eol}{eol}",
        http.len()
    )
    .into_bytes();
    r.extend_from_slice(http);
    r.extend_from_slice(format!("{eol}{eol}").as_bytes());
    r
}

fn response(target: &str, http: &[u8]) -> Vec<u8> {
    response_with("WARC/1.0", target, http, "\r\n")
}

fn http(headers: &str, body: &[u8]) -> Vec<u8> {
    let mut h = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{headers}\r\n").into_bytes();
    h.extend_from_slice(body);
    h
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Records and issues, in order.
fn read(input: &[u8]) -> (Vec<Record>, Vec<urlsift_warc::Issue>) {
    let (mut recs, mut issues) = (Vec::new(), Vec::new());
    for item in Reader::new(input) {
        match item {
            Ok(r) => recs.push(r),
            Err(i) => issues.push(i),
        }
    }
    (recs, issues)
}

fn urls(rec: &Record) -> (Vec<String>, Option<String>) {
    let mut v = Vec::new();
    let p = record_links(rec, &LinkOptions::default(), |l| v.push(l.url));
    (v, p)
}

#[test]
fn a_chunked_header_on_a_de_chunked_body_reads_the_body_as_it_is() {
    let page = b"<html><a href=\"/a\">a</a> <a href=\"/b\">b</a></html>";
    let input = response(
        "http://ex.org/",
        &http("Transfer-Encoding: chunked\r\n", page),
    );
    let (recs, issues) = read(&input);
    assert!(issues.is_empty(), "{issues:?}");
    let (got, problem) = urls(&recs[0]);
    assert_eq!(got, ["http://ex.org/a", "http://ex.org/b"]);
    let problem = problem.expect("a warning");
    assert!(problem.contains("chunk"), "{problem}");
    // A body that is chunked is still de-chunked.
    let chunked = b"8\r\n<a href=\r\n7\r\n/c>c</a\r\n1\r\n>\r\n0\r\n\r\n";
    let input = response(
        "http://ex.org/",
        &http("Transfer-Encoding: chunked\r\n", chunked),
    );
    let (recs, _) = read(&input);
    assert_eq!(urls(&recs[0]), (vec!["http://ex.org/c".to_owned()], None));
}

#[test]
fn warc_0_17_and_0_18_records_are_read_as_1_0() {
    let page = http("", b"<a href=\"x\">x</a>");
    for v in ["WARC/0.17", "WARC/0.18", "WARC/1.0", "WARC/1.1"] {
        // Junk before the second record: reading goes on at its line.
        let mut input = response_with(v, "http://a.example/d/", &page, "\r\n");
        input.extend_from_slice(b"junk\r\n");
        input.extend(response_with(v, "http://b.example/", &page, "\r\n"));
        let (recs, issues) = read(&input);
        assert_eq!(recs.len(), 2, "{v}");
        assert_eq!(issues.len(), 1, "{v}: {issues:?}");
        assert_eq!(urls(&recs[0]).0, ["http://a.example/d/x"], "{v}");
        assert_eq!(urls(&recs[1]).0, ["http://b.example/x"], "{v}");
        for r in [gz(&input), input.clone()] {
            assert_eq!(read(&r).0.len(), 2);
        }
    }
}

#[test]
fn a_content_length_a_few_bytes_short_reads_to_the_next_record() {
    let page = http("", b"<a href=\"/one\">1</a><a href=\"/two\">2</a>");
    for short in [1usize, 3, 9] {
        let mut first = response("http://ex.org/", &page);
        let len = page.len().to_string();
        let lie = (page.len() - short).to_string();
        let at = first
            .windows(len.len())
            .position(|w| w == len.as_bytes())
            .unwrap();
        first.splice(at..at + len.len(), lie.bytes());
        let second = response("http://second.example/", &page);
        let input = [first.clone(), second].concat();
        let (recs, issues) = read(&input);
        assert_eq!(recs.len(), 2, "{short}: {issues:?}");
        assert_eq!(recs[0].block, page, "{short}: {issues:?}");
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(
            (issues[0].offset, issues[0].severity),
            (0, Severity::Warning)
        );
        assert!(issues[0].message.contains("short"), "{issues:?}");
        assert_eq!(recs[1].offset, first.len() as u64);
        assert_eq!(urls(&recs[1]).0.len(), 2);
    }
}

#[test]
fn a_content_length_a_few_bytes_long_ends_at_the_next_record() {
    let page = http("", b"<a href=\"/one\">1</a>");
    let mut first = response("http://ex.org/", &page);
    let len = page.len().to_string();
    let at = first
        .windows(len.len())
        .position(|w| w == len.as_bytes())
        .unwrap();
    first.splice(at..at + len.len(), (page.len() + 3).to_string().bytes());
    let input = [first.clone(), response("http://second.example/", &page)].concat();
    let (recs, issues) = read(&input);
    assert_eq!(recs.len(), 2, "{issues:?}");
    assert_eq!(recs[0].block, page);
    assert_eq!(urls(&recs[1]).0, ["http://second.example/one"]);
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].offset, 0);
}

#[test]
fn cr_cr_lf_and_lf_header_ends_are_read_with_one_warning_each() {
    let page = http("", b"<a href=\"/p\">p</a>");
    for eol in ["\r\r\n", "\n"] {
        let one = response_with("WARC/1.0", "http://ex.org/", &page, eol);
        let input = [
            one.clone(),
            response_with("WARC/1.0", "http://b.example/", &page, eol),
        ]
        .concat();
        let (recs, issues) = read(&input);
        assert_eq!(recs.len(), 2, "{eol:?}: {issues:?}");
        for (r, want) in recs.iter().zip(["http://ex.org/p", "http://b.example/p"]) {
            assert_eq!(r.block, page, "{eol:?}");
            assert_eq!(urls(r).0, [want], "{eol:?}");
        }
        assert_eq!(issues.len(), 1, "{eol:?}: {issues:?}");
        assert_eq!(
            (issues[0].offset, issues[0].severity),
            (0, Severity::Warning)
        );
    }
    // An HTTP head whose lines end in CR CR LF.
    let page = b"HTTP/1.1 200 OK\r\r\nContent-Type: text/html\r\r\n\r\r\n<a href=\"/q\">q</a>";
    let (recs, _) = read(&response("http://ex.org/", page));
    assert_eq!(urls(&recs[0]).0, ["http://ex.org/q"]);
}

#[test]
fn a_truncated_member_gives_the_part_that_inflated() {
    let page: Vec<u8> = (0..2000)
        .flat_map(|i| format!("<a href=\"/p/{i}\">{i} {}</a>\n", i * 7919 % 1000).into_bytes())
        .collect();
    let first = gz(&response(
        "http://ok.example/",
        &http("", b"<a href=/ok>ok</a>"),
    ));
    let mut second = gz(&response("http://cut.example/", &http("", &page)));
    second.truncate(second.len() / 2);
    let input = [first.clone(), second].concat();
    let (recs, issues) = read(&input);
    assert_eq!(recs.len(), 2, "{issues:?}");
    assert_eq!(issues.len(), 1);
    assert_eq!(
        (issues[0].offset, issues[0].severity),
        (first.len() as u64, Severity::Error)
    );
    let cut = &recs[1];
    assert!(cut.truncated);
    let (got, _) = urls(cut);
    assert!(got.len() > 100 && got.len() < 2000, "{}", got.len());
    assert_eq!(got[0], "http://cut.example/p/0");
}

#[test]
fn binary_payloads_are_not_scanned() {
    // A DER certificate and a font served as octet-stream, an image, a zip.
    let cert =
        b"\x30\x82\x05\x10\x30\x82\x03\xf8\xa0\x03\x02\x01\x02 http://ocsp.verisign.com0\x06";
    let font = b"wOF2\x00\x01\x00\x00 http://font.example/";
    let cases: [(&str, &[u8]); 5] = [
        ("application/octet-stream", cert),
        ("application/octet-stream", font),
        ("", font),
        ("image/png", b"\x89PNG\r\n\x1a\n http://png.example/"),
        (
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            b"PK\x03\x04 http://zip.example/",
        ),
    ];
    for (ct, body) in cases {
        let ct_opt = (!ct.is_empty()).then_some(ct);
        assert_eq!(body_kind(ct_opt, body), BodyKind::Other, "{ct} {body:?}");
        let h = format!("HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\n\r\n");
        let rec = Record {
            warc_type: "response".into(),
            target_uri: Some("http://ex.org/".into()),
            block: [h.as_bytes(), body].concat(),
            ..Default::default()
        };
        assert_eq!(urls(&rec).0, Vec::<String>::new(), "{ct}");
    }
    // Text served as octet-stream is still text.
    assert_eq!(
        body_kind(Some("application/octet-stream"), b"see http://a.example/\n"),
        BodyKind::Text
    );
}

#[test]
fn a_body_decoded_past_the_cap_says_so() {
    let page: Vec<u8> = b"<a href=\"/first\">f</a>"
        .iter()
        .copied()
        .chain(std::iter::repeat_n(b' ', 5000))
        .chain(b"<a href=\"/last\">l</a>".iter().copied())
        .collect();
    let input = response(
        "http://ex.org/",
        &http("Content-Encoding: gzip\r\n", &gz(&page)),
    );
    let (recs, _) = read(&input);
    let opts = LinkOptions {
        max_body: 1000,
        ..LinkOptions::default()
    };
    let mut got = Vec::new();
    let problem = record_links(&recs[0], &opts, |l| got.push(l.url));
    assert_eq!(got, ["http://ex.org/first"]);
    let problem = problem.expect("a warning");
    assert!(problem.contains("1000"), "{problem}");
    // At the cap exactly: no warning.
    let opts = LinkOptions {
        max_body: page.len(),
        ..LinkOptions::default()
    };
    assert_eq!(record_links(&recs[0], &opts, |_| {}), None);
}

#[test]
fn arc_version_2_records_read_as_warc_ones() {
    let desc = b"2 0 Alexa Internet\nURL IP-address Archive-date Content-type Result-code Checksum Location Offset Filename Archive-length\n";
    let page = http("", b"<a href=\"b c.html\">b</a>");
    let mut arc = format!(
        "filedesc://x.arc 0.0.0.0 20080101000000 text/plain 200 - - 0 x.arc {}\n",
        desc.len()
    )
    .into_bytes();
    arc.extend_from_slice(desc);
    arc.push(b'\n');
    let second = arc.len() as u64;
    arc.extend(
        format!(
            "http://ex.org/a b/ 1.2.3.4 20080102030405 text/html 200 abc - 0 x.arc {}\n",
            page.len()
        )
        .bytes(),
    );
    arc.extend_from_slice(&page);
    arc.push(b'\n');
    for input in [arc.clone(), gz(&arc)] {
        let (recs, issues) = read(&input);
        assert!(issues.is_empty(), "{issues:?}");
        let kinds: Vec<_> = recs.iter().map(|r| r.warc_type.as_str()).collect();
        assert_eq!(kinds, ["warcinfo", "response"]);
        let r = &recs[1];
        assert_eq!(r.target_uri.as_deref(), Some("http://ex.org/a b/"));
        assert_eq!(r.date.as_deref(), Some("2008-01-02T03:04:05Z"));
        assert_eq!(r.record_id, None);
        assert_eq!(r.block, page);
        if input == arc {
            assert_eq!(r.offset, second);
        }
        assert_eq!(urls(r).0, ["http://ex.org/a b/b c.html"]);
        assert_eq!(urls(&recs[0]).0, Vec::<String>::new());
    }
}

fn lz4(data: &[u8]) -> Vec<u8> {
    use lz4_flex::frame::{BlockSize, FrameEncoder, FrameInfo};
    let info = FrameInfo::new().block_size(BlockSize::Max64KB);
    let mut e = FrameEncoder::with_frame_info(info, Vec::new());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn lz4_frames_are_records_with_their_frame_offsets() {
    let pages: Vec<Vec<u8>> = (0..3)
        .map(|i| {
            response(
                &format!("http://p{i}.example/"),
                &http(
                    "",
                    &format!("<a href=\"/x{i}\">x</a>").repeat(2000).into_bytes(),
                ),
            )
        })
        .collect();
    // A skippable frame between the first two; junk before the third.
    let skippable = [&b"\x50\x2a\x4d\x18\x03\x00\x00\x00abc"[..]].concat();
    let mut input = lz4(&pages[0]);
    let mut offsets = vec![0u64];
    input.extend_from_slice(&skippable);
    offsets.push(input.len() as u64);
    input.extend(lz4(&pages[1]));
    input.extend_from_slice(b"junk");
    offsets.push(input.len() as u64);
    input.extend(lz4(&pages[2]));
    let (recs, issues) = read(&input);
    assert_eq!(recs.iter().map(|r| r.offset).collect::<Vec<_>>(), offsets);
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert!(issues[0].message.contains("LZ4"), "{issues:?}");
    for (i, r) in recs.iter().enumerate() {
        let (got, _) = urls(r);
        assert_eq!(got.len(), 2000);
        assert_eq!(got[0], format!("http://p{i}.example/x{i}"));
    }
    // A frame cut short: the part decoded is read, as for gzip.
    // (Frames decode a block at a time: a page of several blocks.)
    let big = response(
        "http://big.example/",
        &http(
            "",
            &(0..20000)
                .flat_map(|i| format!("<a href=\"/y{}\">y</a>\n", i * 7919 % 10007).into_bytes())
                .collect::<Vec<u8>>(),
        ),
    );
    let mut cut = lz4(&big);
    cut.truncate(cut.len() - 40);
    let (recs, issues) = read(&cut);
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].severity, Severity::Error);
    assert!(issues[0].message.contains("LZ4 frame"), "{issues:?}");
    assert!(
        recs.len() == 1 && recs[0].truncated,
        "{issues:?} {}",
        cut.len()
    );
}

/// A WAT metadata record for `target`, with `html` as its HTML-Metadata.
fn wat(target: &str, html: &serde_json::Value, headers: &serde_json::Value) -> Vec<u8> {
    let json = serde_json::json!({
        "Container": {"Filename": "x.warc.gz"},
        "Envelope": {
            "Format": "WARC",
            "WARC-Header-Metadata": {"WARC-Type": "response", "WARC-Target-URI": target},
            "Payload-Metadata": {
                "Actual-Content-Type": "application/http; msgtype=response",
                "HTTP-Response-Metadata": {
                    "Response-Message": {"Status": "200"},
                    "Headers": headers,
                    "HTML-Metadata": html,
                }
            }
        }
    })
    .to_string();
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: metadata\r\nWARC-Target-URI: {target}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        json.len()
    )
    .into_bytes();
    r.extend_from_slice(json.as_bytes());
    r.extend_from_slice(b"\r\n\r\n");
    r
}

#[test]
fn wat_links_are_decoded_resolved_and_named_by_their_path() {
    let html = serde_json::json!({
        "Head": {
            "Base": "/base/",
            "Link": [{"path": "LINK@/href", "rel": "stylesheet", "url": "s.css"}],
            "Scripts": [{"path": "SCRIPT@/src", "url": "//cdn.example/j.js"}],
        },
        "Links": [
            {"path": "A@/href", "url": "p?a=1&amp;b=2", "text": "p"},
            {"path": "IMG@/src", "url": "http://img.example/i.png"},
            {"path": "FORM@/action", "url": "../go"},
            {"path": "A@/title", "url": "t"},
        ]
    });
    let headers = serde_json::json!({"location": "/moved"});
    let (recs, issues) = read(&wat("http://ex.org/d/page", &html, &headers));
    assert!(issues.is_empty());
    let mut got = Vec::new();
    let problem = record_links(&recs[0], &LinkOptions::default(), |l| {
        let name = match &l.source {
            urlsift_warc::Source::Attribute { tag, attr } => format!("{tag}@{attr}"),
            other => other.kind().to_owned(),
        };
        got.push((l.url, name, l.found));
    });
    assert_eq!(problem, None);
    let want = [
        ("http://ex.org/moved", "header", Some("/moved")),
        ("http://ex.org/base/s.css", "link@href", Some("s.css")),
        (
            "http://cdn.example/j.js",
            "script@src",
            Some("//cdn.example/j.js"),
        ),
        (
            "http://ex.org/base/p?a=1&b=2",
            "a@href",
            Some("p?a=1&amp;b=2"),
        ),
        ("http://img.example/i.png", "img@src", None),
        ("http://ex.org/go", "form@action", Some("../go")),
        ("http://ex.org/base/t", "a@other", Some("t")),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(u, n, f)| (u.to_string(), n.to_string(), f.map(str::to_owned)))
        .collect();
    assert_eq!(got, want);
    // Metadata that is not JSON is a problem; other metadata gives nothing.
    let mut bad = recs[0].clone();
    bad.block.truncate(bad.block.len() / 2);
    assert!(record_links(&bad, &LinkOptions::default(), |_| {}).is_some());
    let mut other = recs[0].clone();
    other.content_type = Some("application/warc-fields".into());
    let mut n = 0;
    record_links(&other, &LinkOptions::default(), |_| n += 1);
    assert_eq!(n, 0);
}
