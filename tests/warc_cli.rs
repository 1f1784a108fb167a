//! Web archives through the command line: WARC records are recognised by
//! content (plain, gzip per record, standard input), their links reported
//! with the record's origin, in file order for every thread count.
//! (Every test name holds `_cli_`: they run the binary.)

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_urlsift");
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/warc/tests/data");

fn run(args: &[&str], stdin: Option<&[u8]>) -> (Vec<u8>, String, i32) {
    let mut c = Command::new(BIN)
        .args(args)
        .current_dir(DATA)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = stdin {
        c.stdin.take().unwrap().write_all(input).unwrap();
    }
    let o = c.wait_with_output().unwrap();
    (
        o.stdout,
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code().unwrap_or(-1),
    )
}

fn json_rows(out: &[u8]) -> Vec<serde_json::Value> {
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

#[test]
fn warc_cli_plain_gzip_and_stdin_agree_for_every_thread_count() {
    let (want, err, code) = run(&["-j1", "sample.warc"], None);
    assert_eq!(code, 0, "{err}");
    assert!(want.split(|&b| b == b'\n').count() > 500);
    for args in [
        &["-j2", "sample.warc.gz"][..],
        &["-j8", "--chunk-size", "1000", "sample.warc.gz"],
        &["--no-mmap", "sample.warc"],
    ] {
        let (got, err, code) = run(args, None);
        assert_eq!((code, got == want), (0, true), "{args:?}: {err}");
    }
    let gz = std::fs::read(format!("{DATA}/sample.warc.gz")).unwrap();
    let (got, _, code) = run(&["-"], Some(&gz));
    assert_eq!((code, got == want), (0, true), "stdin");
}

#[test]
fn warc_cli_attribute_links_match_the_oracle_under_their_record() {
    // links.json: per record id, the href/src/... links an independent
    // parser (html.parser + urljoin) finds in each response record.
    let oracle: HashMap<String, Vec<(String, String, String)>> =
        serde_json::from_slice(&std::fs::read(format!("{DATA}/links.json")).unwrap()).unwrap();
    // The record ids of this archive (links.json covers every fixture).
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{DATA}/expected.json")).unwrap()).unwrap();
    let ids: HashSet<&str> = expected["sample.warc.gz"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["record_id"].as_str().unwrap())
        .collect();
    let (out, err, code) = run(&["--format", "json", "sample.warc.gz"], None);
    assert_eq!(code, 0, "{err}");
    let mut got: HashMap<String, HashSet<String>> = HashMap::new();
    for row in json_rows(&out) {
        assert!(row["warc_offset"].is_u64() && row["warc_type"].is_string());
        if row["source"] == "attribute" {
            let id = row["warc_record_id"].as_str().unwrap().to_string();
            let url = row["url"].as_str().unwrap().to_string();
            assert!(
                url.contains("://") || url.starts_with("mailto:") || url.contains(':'),
                "{url}"
            );
            got.entry(id).or_default().insert(url);
        }
    }
    let (mut both, mut want_n, mut got_n) = (0usize, 0usize, 0usize);
    for (id, links) in oracle.iter().filter(|(id, _)| ids.contains(id.as_str())) {
        let want: HashSet<String> = links.iter().map(|l| l.2.clone()).collect();
        let g = got.remove(id).unwrap_or_default();
        both += want.intersection(&g).count();
        want_n += want.len();
        got_n += g.len();
    }
    for g in got.values() {
        got_n += g.len();
    }
    let recall = both as f64 / want_n as f64;
    let precision = both as f64 / got_n as f64;
    assert!(
        want_n > 300 && recall >= 0.99 && precision >= 0.99,
        "{recall} {precision} of {want_n}"
    );
}

#[test]
fn warc_cli_offsets_are_the_records_members() {
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{DATA}/expected.json")).unwrap()).unwrap();
    let offsets: HashMap<String, u64> = expected["sample.warc.gz"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["record_id"].as_str().unwrap().to_string(),
                r["offset"].as_u64().unwrap(),
            )
        })
        .collect();
    let (out, _, _) = run(&["--format", "json", "sample.warc.gz"], None);
    let rows = json_rows(&out);
    assert!(!rows.is_empty());
    for row in rows {
        let id = row["warc_record_id"].as_str().unwrap();
        assert_eq!(
            row["warc_offset"].as_u64(),
            offsets.get(id).copied(),
            "{id}"
        );
    }
}

#[test]
fn warc_cli_wet_text_gives_what_the_text_alone_gives() {
    let (out, err, code) = run(&["--format", "json", "sample.wet"], None);
    assert_eq!(code, 0, "{err}");
    let rows = json_rows(&out);
    assert!(!rows.is_empty());
    // Each conversion record's text, scanned on its own.
    let wet = std::fs::read(format!("{DATA}/sample.wet")).unwrap();
    let mut by_target: HashMap<String, Vec<String>> = HashMap::new();
    for row in &rows {
        assert_eq!(row["warc_type"], "conversion");
        assert_eq!(row["source"], "text");
        by_target
            .entry(row["warc_target_uri"].as_str().unwrap().to_string())
            .or_default()
            .push(row["url"].as_str().unwrap().to_string());
    }
    for rec in wet
        .split(|&b| b == b'\n')
        .collect::<Vec<_>>()
        .split(|l| l.starts_with(b"WARC/1."))
        .skip(1)
    {
        let target = rec
            .iter()
            .find_map(|l| l.strip_prefix(b"WARC-Target-URI: "))
            .map(|t| String::from_utf8_lossy(t).trim().to_string());
        let Some(target) = target else { continue };
        let body_at = rec.iter().position(|l| l.trim_ascii().is_empty()).unwrap();
        let text = rec[body_at + 1..].join(&b'\n');
        let alone: Vec<String> = urlsift_core::find(&text)
            .map(|m| m.url_str().into_owned())
            .collect();
        let got = by_target.remove(&target).unwrap_or_default();
        assert_eq!(got, alone, "{target}");
    }
}

#[test]
fn warc_cli_broken_archives_report_the_offset_and_keep_the_rest() {
    let (all, _, _) = run(&["sample.warc.gz"], None);
    for file in ["truncated.warc.gz", "corrupt-member.warc.gz"] {
        let (out, err, code) = run(&[file], None);
        assert_eq!(code, 2, "{file}: {err}");
        assert!(err.contains(&format!("{file}: byte ")), "{err}");
        assert!(
            !out.is_empty() && all.starts_with(&out[..out.len() / 2]),
            "{file}"
        );
    }
    // A lying Content-Length is a warning: the other records are read.
    let (out, err, code) = run(&["lying-length.warc.gz"], None);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("byte ") && !out.is_empty(), "{err}");
}

/// The web columns of CSV, TSV and Parquet output, for a text URL from
/// standard input then the links of a web archive: (source, target URI,
/// offset, length, HTTP status, rel), empty or null for the text URL.
type WebCols = Vec<(
    Option<String>,
    Option<String>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<String>,
)>;

fn web_cols_of_json(out: &[u8]) -> WebCols {
    json_rows(out)
        .iter()
        .map(|r| {
            (
                r["source"].as_str().map(String::from),
                r["warc_target_uri"].as_str().map(String::from),
                r["warc_offset"].as_u64(),
                r["warc_length"].as_u64(),
                r["http_status"].as_u64(),
                r["rel"].as_str().map(String::from),
            )
        })
        .collect()
}

fn web_cols_of_csv(out: &[u8], delimiter: u8) -> WebCols {
    let mut r = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .quoting(delimiter == b',')
        .from_reader(out);
    let header = r.headers().unwrap().clone();
    let at = |n: &str| header.iter().position(|h| h == n).unwrap();
    let (s, t, o) = (at("source"), at("warc_target_uri"), at("warc_offset"));
    let (l, h, rel) = (at("warc_length"), at("http_status"), at("rel"));
    // The web columns come last, after the record's own.
    assert_eq!(at("domain") + 1, at("found"));
    assert_eq!(rel + 1, header.len());
    let text = |v: &str| (!v.is_empty()).then(|| v.to_string());
    let int = |v: &str| text(v).map(|v| v.parse().unwrap());
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            (
                text(&rec[s]),
                text(&rec[t]),
                int(&rec[o]),
                int(&rec[l]),
                int(&rec[h]),
                text(&rec[rel]),
            )
        })
        .collect()
}

#[test]
fn warc_cli_csv_tsv_and_parquet_carry_the_web_columns() {
    let stdin = &b"see http://text.example/ here\n"[..];
    let args = |f: &'static str| vec!["--format", f, "-", "sample.warc.gz"];
    let (json, err, code) = run(&args("json"), Some(stdin));
    assert_eq!(code, 0, "{err}");
    let want = web_cols_of_json(&json);
    assert!(want.len() > 500);
    assert_eq!(want[0], (None, None, None, None, None, None));
    assert!(want[1..].iter().all(|w| w.0.is_some() && w.2.is_some()));
    assert!(want.iter().any(|w| w.2 > Some(0) && w.1.is_some()));
    // Every record of a gzip member each has a length; responses a status.
    assert!(want[1..].iter().all(|w| w.3 > Some(0)));
    assert!(want.iter().any(|w| w.4 == Some(200)));
    assert!(want.iter().any(|w| w.5.as_deref() == Some("stylesheet")));
    for (format, delimiter) in [("csv", b','), ("tsv", b'\t')] {
        let (out, err, code) = run(&args(format), Some(stdin));
        assert_eq!(code, 0, "{err}");
        assert_eq!(web_cols_of_csv(&out, delimiter), want, "{format}");
    }
    if cfg!(feature = "parquet") {
        let dir = tempfile::tempdir().unwrap();
        let pq = dir.path().join("links.parquet");
        let pq = pq.to_str().unwrap();
        let (_, err, code) = run(
            &["--format", "parquet", "--output", pq, "-", "sample.warc.gz"],
            Some(stdin),
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(parquet_web_cols(pq), want);
    }
}

#[cfg(feature = "parquet")]
fn parquet_web_cols(path: &str) -> WebCols {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut got = Vec::new();
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let col = |n: &str| {
            row.get_column_iter()
                .find(|(name, _)| name.as_str() == n)
                .map(|(_, f)| f.clone())
                .unwrap()
        };
        let text = |n: &str| match col(n) {
            Field::Str(s) => Some(s),
            Field::Null => None,
            f => panic!("{n}: {f:?}"),
        };
        let int = |n: &str| match col(n) {
            Field::Long(o) => Some(u64::try_from(o).unwrap()),
            Field::Null => None,
            f => panic!("{n}: {f:?}"),
        };
        got.push((
            text("source"),
            text("warc_target_uri"),
            int("warc_offset"),
            int("warc_length"),
            int("http_status"),
            text("rel"),
        ));
    }
    got
}

#[cfg(not(feature = "parquet"))]
fn parquet_web_cols(_: &str) -> WebCols {
    unreachable!("parquet is a feature of this build")
}

#[test]
fn warc_cli_unique_count_by_and_shards_work_on_archives() {
    // --unique, --count-by host and --shards take an archive's links as
    // any input's URLs.
    let (all, _, code) = run(&["--normalize", "sample.warc.gz"], None);
    assert_eq!(code, 0);
    let lines: Vec<&[u8]> = all
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut seen = HashSet::new();
    let firsts: Vec<&[u8]> = lines.iter().copied().filter(|l| seen.insert(*l)).collect();
    assert!(
        firsts.len() > 50 && firsts.len() < lines.len(),
        "{}",
        firsts.len()
    );
    let (uniq, _, _) = run(&["--unique", "--normalize", "sample.warc.gz"], None);
    let uniq: Vec<&[u8]> = uniq
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(uniq, firsts, "--unique: the first of each, in file order");

    let (hosts, _, _) = run(&["--count-by", "host", "sample.warc.gz"], None);
    let total: u64 = String::from_utf8(hosts)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().parse::<u64>().unwrap())
        .sum();
    let (json, _, _) = run(&["--format", "json", "sample.warc.gz"], None);
    let with_host = json_rows(&json)
        .iter()
        .filter(|r| r["host"].as_str().is_some_and(|h| !h.is_empty()))
        .count();
    assert!(with_host > 100 && with_host < lines.len(), "{with_host}");
    assert_eq!(
        total, with_host as u64,
        "--count-by host: every link with a non-empty host"
    );

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shards");
    let (_, err, code) = run(
        &[
            "--shards",
            "3",
            "--unique",
            "--normalize",
            "--output",
            out.to_str().unwrap(),
            "sample.warc.gz",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let mut sharded = Vec::new();
    for i in 0..3 {
        let p = out.join(format!("part-{i:05}.txt"));
        let text = std::fs::read(&p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        sharded.extend(
            text.split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec),
        );
    }
    sharded.sort();
    let mut want: Vec<Vec<u8>> = firsts.iter().map(|l| l.to_vec()).collect();
    want.sort();
    assert_eq!(
        sharded, want,
        "the shards hold the distinct links once each"
    );
}

/// A WARC `response` record for `target` whose block is `http`.
fn response(target: &str, http: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {target}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    r.extend_from_slice(http);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// An HTTP response head with these extra header lines, then `body`.
fn http(headers: &str, body: &[u8]) -> Vec<u8> {
    let mut h = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{headers}\r\n").into_bytes();
    h.extend_from_slice(body);
    h
}

/// A page of `n` links, `/p/0` to `/p/{n-1}`.
fn link_page(n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| format!("<a href=\"/p/{i}\">x</a>\n").into_bytes())
        .collect()
}

#[test]
fn warc_cli_broken_bodies_warn_with_the_record_offset_and_keep_their_head() {
    let page = link_page(3000);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&page).unwrap();
    let mut gz = gz.finish().unwrap();
    // Damage the middle of the deflate data: the head of the page inflates.
    let mid = gz.len() / 2;
    for b in &mut gz[mid..mid + 16] {
        *b ^= 0x5a;
    }
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    zlib.write_all(&page).unwrap();
    let zlib = zlib.finish().unwrap();
    let zlib_cut = &zlib[..zlib.len() / 2];
    let zst = zstd::encode_all(&page[..], 3).unwrap();
    let mut zst_bad = zst.clone();
    zst_bad.truncate(zst.len() - 5);
    zst_bad.extend_from_slice(&[0xff; 5]);
    let chunked_bad = b"1c\r\n<a href=\"/c/1\">one</a> and \r\nzz\r\n<a href=\"/c/2\">".to_vec();
    let chunked_short = b"1a\r\n<a href=\"/s/1\">one</a> a\r\n".to_vec();
    let records: Vec<(&str, Vec<u8>, bool)> = vec![
        (
            "http://gz.example/",
            http("Content-Encoding: gzip\r\n", &gz),
            true,
        ),
        (
            "http://ok1.example/",
            http("", b"<a href=\"/ok1\">ok</a>"),
            false,
        ),
        (
            "http://zlib.example/",
            http("Content-Encoding: deflate\r\n", zlib_cut),
            true,
        ),
        (
            "http://zstd.example/",
            http("Content-Encoding: zstd\r\n", &zst_bad),
            true,
        ),
        (
            "http://chunked.example/",
            http("Transfer-Encoding: chunked\r\n", &chunked_bad),
            true,
        ),
        (
            "http://short.example/",
            http("Transfer-Encoding: chunked\r\n", &chunked_short),
            true,
        ),
        (
            "http://ok2.example/",
            http("", b"<a href=\"/ok2\">ok</a>"),
            false,
        ),
    ];
    let mut warc = Vec::new();
    let mut offsets = Vec::new();
    for (target, block, _) in &records {
        offsets.push(warc.len());
        warc.extend_from_slice(&response(target, block));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bodies.warc");
    std::fs::write(&path, &warc).unwrap();
    let file = path.to_str().unwrap();
    for args in [&["-j1", file][..], &["-j2", file], &["-m", "100000", file]] {
        let (out, err, code) = run(args, None);
        // Warnings, as for any malformed record: the status is that of the
        // links found.
        assert_eq!(code, 0, "{args:?}: {err}");
        for ((target, _, broken), off) in records.iter().zip(&offsets) {
            let warned = err.contains(&format!("{file}: byte {off}: "));
            assert_eq!(warned, *broken, "{args:?}: {target} at {off}: {err}");
        }
        assert_eq!(err.lines().count(), 5, "{err}");
        let out = String::from_utf8(out).unwrap();
        let urls: Vec<&str> = out.lines().collect();
        // What was decoded before each break is read.
        for want in [
            "http://gz.example/p/0",
            "http://gz.example/p/100",
            "http://zlib.example/p/0",
            "http://zlib.example/p/100",
            "http://chunked.example/c/1",
            "http://short.example/s/1",
            "http://ok1.example/ok1",
            "http://ok2.example/ok2",
        ] {
            assert!(urls.contains(&want), "{args:?}: {want}");
        }
        assert!(!urls.contains(&"http://gz.example/p/2999"), "{args:?}");
    }
    // `-s` silences the warnings, not the links.
    let (out, err, code) = run(&["-s", file], None);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(!out.is_empty());
}

#[test]
fn warc_cli_a_page_gives_its_links_in_the_order_of_the_same_html_file() {
    // Attributes and text URLs interleaved, a srcset, entities, a meta
    // refresh, text in a title, and a script that is skipped.
    let page = b"<!DOCTYPE html><html><head><title>see http://title.example/</title>
<meta http-equiv=refresh content=\"0; url=/moved\"><base href=\"/docs/\"></head>
<body><p>First http://one.example/a and <a href=\"guide/a.html\">the guide</a>
then www.two.example, <img src=\"../i.png\" srcset=\"s1.png 1x, s2.png 2x\">
&lt;http://three.example/x&gt; <a href='q?a=1&amp;b=2'>q</a>
<script>var u = \"http://script.example/\";</script> last http://four.example/.
<a href=\"mailto:x@y.example\">m</a></body></html>
";
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("page.html");
    std::fs::write(&html, page).unwrap();
    let warc = dir.path().join("page.warc");
    std::fs::write(&warc, response("http://ex.org/x/", &http("", page))).unwrap();
    let key = |r: &serde_json::Value| {
        ["url", "start", "end", "source", "source_name", "found"].map(|k| r[k].to_string())
    };
    let (out, err, code) = run(
        &[
            "--format",
            "json",
            "--base",
            "http://ex.org/x/",
            html.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let want: Vec<_> = json_rows(&out).iter().map(key).collect();
    assert!(want.len() > 10, "{want:?}");
    for j in ["-j1", "-j2"] {
        let (out, err, code) = run(&[j, "--format", "json", warc.to_str().unwrap()], None);
        assert_eq!(code, 0, "{err}");
        let got: Vec<_> = json_rows(&out).iter().map(key).collect();
        assert_eq!(got, want, "{j}");
    }
}

/// Several inputs, web archives among them, at two threads: a pool thread
/// that blocks on a full output queue while it holds another input's work
/// would hang the run. Each run must end within a minute.
#[test]
fn warc_cli_many_inputs_at_two_threads_never_hang() {
    use std::time::{Duration, Instant};
    let root = env!("CARGO_MANIFEST_DIR");
    let inputs = [
        format!("{root}/tests/data"),
        format!("{root}/datasets/sample.txt"),
        DATA.to_string(),
        format!("{root}/datasets/urls.txt"),
    ];
    for round in 0..16 {
        let mut c = Command::new(BIN)
            .args(["-j2", "--format", "json"])
            .args(&inputs)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(s) = c.try_wait().unwrap() {
                break Some(s);
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = c.kill();
                let _ = c.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let status = status.unwrap_or_else(|| panic!("round {round}: the run hung"));
        // Exit 2: the broken archives among the test data are reported.
        assert!(
            matches!(status.code(), Some(0 | 2)),
            "round {round}: {status}"
        );
    }
}

/// The JSON rows of `args` + the file, the same with `--no-mmap`, and of
/// the file's bytes on standard input (`-`), which must all be the same
/// but for the input's name.
fn three_ways(args: &[&str], path: &std::path::Path) -> (Vec<serde_json::Value>, String) {
    let file = path.to_str().unwrap();
    let data = std::fs::read(path).unwrap();
    let (a, err, code) = run(&[args, &["--format", "json", file]].concat(), None);
    assert!(code == 0, "{err}");
    let (b, err_b, _) = run(
        &[args, &["--format", "json", "--no-mmap", file]].concat(),
        None,
    );
    let (c, err_c, _) = run(&[args, &["--format", "json", "-"]].concat(), Some(&data));
    let strip = |rows: Vec<serde_json::Value>| -> Vec<serde_json::Value> {
        rows.into_iter()
            .map(|mut r| {
                r.as_object_mut().unwrap().remove("path");
                r.as_object_mut().unwrap().remove("file");
                r
            })
            .collect()
    };
    let rows = strip(json_rows(&a));
    assert_eq!(strip(json_rows(&b)), rows, "--no-mmap: {err_b}");
    assert_eq!(strip(json_rows(&c)), rows, "stdin: {err_c}");
    (rows, err)
}

#[test]
fn warc_cli_warc_0_18_is_read_from_a_file_without_mmap_and_from_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    for v in ["0.17", "0.18"] {
        let page = http("", b"<a href=\"rel/page.html\">r</a>");
        let rec = response("http://clueweb.example/d/", &page);
        let rec = [format!("WARC/{v}").as_bytes(), &rec[8..]].concat();
        let path = dir.path().join(format!("cw-{v}.warc"));
        std::fs::write(&path, [rec.clone(), rec].concat()).unwrap();
        let (rows, err) = three_ways(&[], &path);
        assert_eq!(rows.len(), 2, "{v}: {err}");
        for r in &rows {
            assert_eq!(r["url"], "http://clueweb.example/d/rel/page.html", "{v}");
            assert_eq!(r["warc_target_uri"], "http://clueweb.example/d/", "{v}");
        }
    }
}

#[test]
fn warc_cli_a_long_gzip_header_is_sniffed_the_same_every_way() {
    let page = http("", b"<a href=\"/long\">l</a>");
    let rec = response("http://gz.example/", &page);
    let dir = tempfile::tempdir().unwrap();
    for (name, extra) in [("fname", false), ("fextra", true)] {
        let mut b = flate2::GzBuilder::new();
        b = if extra {
            b.extra(vec![b'x'; 9000])
        } else {
            b.filename(vec![b'n'; 9000])
        };
        let mut e = b.write(Vec::new(), flate2::Compression::default());
        e.write_all(&rec).unwrap();
        let gz = e.finish().unwrap();
        let path = dir.path().join(format!("{name}.warc.gz"));
        std::fs::write(&path, [gz.clone(), gz.clone()].concat()).unwrap();
        let (rows, err) = three_ways(&[], &path);
        assert_eq!(rows.len(), 2, "{name}: {err}");
        for (r, off) in rows.iter().zip([0, gz.len()]) {
            assert_eq!(r["url"], "http://gz.example/long", "{name}");
            assert_eq!(r["warc_offset"], off, "{name}");
        }
    }
}

#[test]
fn warc_cli_a_body_decoded_past_the_cap_warns_with_the_record_offset() {
    // 70 MiB of spaces between two links, zstd-coded: a few KiB.
    let mut page = b"<a href=\"/first\">f</a>".to_vec();
    page.resize(70 << 20, b' ');
    page.extend_from_slice(b"<a href=\"/last\">l</a>");
    let z = zstd::encode_all(&page[..], 19).unwrap();
    drop(page);
    let first = response("http://ok.example/", &http("", b"<a href=/ok>ok</a>"));
    let big = response(
        "http://big.example/",
        &http("Content-Encoding: zstd\r\n", &z),
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.warc");
    std::fs::write(&path, [first.clone(), big].concat()).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() < 64 << 10);
    let file = path.to_str().unwrap();
    let (out, err, code) = run(&[file], None);
    assert_eq!(code, 0, "{err}");
    let out = String::from_utf8(out).unwrap();
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["http://ok.example/ok", "http://big.example/first"]
    );
    let want = format!("{file}: byte {}: ", first.len());
    assert!(err.contains(&want) && err.contains("67108864"), "{err}");
}

#[test]
fn warc_cli_a_de_chunked_body_under_a_chunked_header_gives_its_links() {
    let page = link_page(500);
    let first = response("http://ok.example/", &http("", b"<a href=/ok>ok</a>"));
    let rec = response(
        "http://liveweb.example/",
        &http("Transfer-Encoding: chunked\r\n", &page),
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("liveweb.warc");
    std::fs::write(&path, [first.clone(), rec].concat()).unwrap();
    let file = path.to_str().unwrap();
    let (out, err, code) = run(&[file], None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 501);
    assert!(
        err.contains(&format!("{file}: byte {}: ", first.len())),
        "{err}"
    );
    assert!(err.contains("chunk"), "{err}");
}

#[test]
fn warc_cli_arc_files_give_warc_fields_and_no_filedesc_url() {
    let dir = std::path::Path::new(DATA).join("others");
    let mut seen = Vec::new();
    for name in ["warcio-example.arc", "warcio-example.arc.gz"] {
        let (rows, err) = three_ways(&[], &dir.join(name));
        assert!(err.is_empty(), "{name}: {err}");
        let links: Vec<_> = rows
            .iter()
            .map(|r| {
                assert!(!r["url"].as_str().unwrap().starts_with("filedesc:"), "{r}");
                (
                    r["url"].clone(),
                    r["warc_target_uri"].clone(),
                    r["warc_type"].clone(),
                    r["warc_date"].clone(),
                    r["warc_record_id"].clone(),
                )
            })
            .collect();
        assert!(
            links.contains(&(
                "http://www.iana.org/domains/example".into(),
                "http://example.com/".into(),
                "response".into(),
                "2014-02-16T05:02:21Z".into(),
                serde_json::Value::Null,
            )),
            "{name}: {links:?}"
        );
        // An ARC capture has its HTTP status and its length, as a WARC
        // record.
        let first = &rows[0];
        assert_eq!(
            (&first["warc_type"], &first["http_status"]),
            (&"response".into(), &200.into())
        );
        assert!(
            rows.iter().all(|r| r["warc_length"].as_u64() > Some(0)),
            "{name}"
        );
        // The offset is the record's (plain) or its member's (gzip).
        let off = rows[0]["warc_offset"].as_u64().unwrap();
        let data = std::fs::read(dir.join(name)).unwrap();
        if name.ends_with(".gz") {
            assert_eq!(&data[off as usize..off as usize + 2], b"\x1f\x8b");
        } else {
            assert!(data[off as usize..].starts_with(b"http://example.com/ "));
        }
        seen.push(links);
    }
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn warc_cli_a_malformed_arc_warns_and_reads_on() {
    // warcio's bad.arc: lengths of -1 and "abc", an 18-digit date.
    let file = "others/warcio-bad.arc";
    let (out, err, code) = run(&["--format", "json", file], None);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains(&format!("{file}: byte 262: not an ARC record header")),
        "{err}"
    );
    assert!(!err.contains("panicked"));
}

#[test]
fn warc_cli_lz4_frames_are_read_from_a_file_without_mmap_and_from_a_pipe() {
    // FastWARC's test archive: a frame per record.
    let path = std::path::Path::new(DATA).join("others/resiliparse-warcfile.warc.lz4");
    let data = std::fs::read(&path).unwrap();
    let (rows, err) = three_ways(&["-s"], &path);
    assert!(err.is_empty(), "{err}");
    assert!(rows.len() > 1000, "{}", rows.len());
    for r in &rows {
        assert!(r["warc_target_uri"].is_string(), "{r}");
        let off = r["warc_offset"].as_u64().unwrap() as usize;
        assert!(data[off..].starts_with(b"\x04\x22\x4d\x18"), "{off}");
        assert!(!r["url"].as_str().unwrap().contains('\u{fffd}'), "{r}");
    }
}

#[test]
fn warc_cli_an_lz4_archive_whose_first_block_is_long_is_read_three_ways() {
    // A first record whose LZ4 block is far longer than the bytes a sniffer
    // reads first: the block is decoded only whole.
    let mut seed = 7u32;
    let filler: Vec<u8> = (0..60_000)
        .map(|_| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            b"abcdefghijklmnopqrstuvwxyz  \n"[(seed >> 16) as usize % 29]
        })
        .collect();
    let mut page = filler.clone();
    page.extend_from_slice(b"<a href=\"rel/page.html\">r</a>");
    let rec = response("http://lz4.example/d/", &http("", &page));
    let mut frame = lz4_flex::frame::FrameEncoder::new(Vec::new());
    std::io::Write::write_all(&mut frame, &rec).unwrap();
    let data = frame.finish().unwrap();
    let block = u32::from_le_bytes(data[7..11].try_into().unwrap()) & 0x7fff_ffff;
    assert!(block > 8192, "{block}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.warc.lz4");
    std::fs::write(&path, &data).unwrap();
    let (rows, err) = three_ways(&[], &path);
    assert!(err.is_empty(), "{err}");
    let urls: Vec<&str> = rows.iter().map(|r| r["url"].as_str().unwrap()).collect();
    assert_eq!(urls, ["http://lz4.example/d/rel/page.html"], "{err}");
    assert_eq!(rows[0]["warc_offset"], 0);
}

#[test]
fn warc_cli_a_wat_gives_the_links_of_its_warc() {
    let page = b"<html><head><link rel=stylesheet href=\"s.css\"><script src=\"/j.js\"></script></head>\
<body><a href=\"p?a=1&amp;b=2\">p</a> <img src=\"../i.png\"> <a href=\"http://other.example/\">o</a></body></html>";
    let target = "http://ex.org/d/page";
    let warc = response(target, &http("", page));
    let json = serde_json::json!({
        "Envelope": {
            "WARC-Header-Metadata": {"WARC-Type": "response", "WARC-Target-URI": target},
            "Payload-Metadata": {"HTTP-Response-Metadata": {
                "Headers": {"Content-Type": "text/html"},
                "HTML-Metadata": {
                    "Head": {
                        "Link": [{"path": "LINK@/href", "rel": "stylesheet", "url": "s.css"}],
                        "Scripts": [{"path": "SCRIPT@/src", "url": "/j.js"}]
                    },
                    "Links": [
                        {"path": "A@/href", "url": "p?a=1&amp;b=2", "text": "p"},
                        {"path": "IMG@/src", "url": "../i.png"},
                        {"path": "A@/href", "url": "http://other.example/", "text": "o"}
                    ]
                }
            }}
        }
    })
    .to_string();
    let mut wat = format!(
        "WARC/1.0\r\nWARC-Type: metadata\r\nWARC-Target-URI: {target}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}\r\n\r\n",
        json.len()
    )
    .into_bytes();
    let dir = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&wat).unwrap();
    wat = gz.finish().unwrap();
    let (wp, tp) = (dir.path().join("x.warc"), dir.path().join("x.wat.gz"));
    std::fs::write(&wp, &warc).unwrap();
    std::fs::write(&tp, &wat).unwrap();
    let links = |p: &std::path::Path| {
        let (out, err, code) = run(&["--format", "json", p.to_str().unwrap()], None);
        assert_eq!(code, 0, "{err}");
        let mut v: Vec<_> = json_rows(&out)
            .iter()
            .filter(|r| r["source"] == "attribute")
            .map(|r| {
                assert_eq!(r["warc_target_uri"], target);
                (r["url"].to_string(), r["source_name"].to_string())
            })
            .collect();
        v.sort();
        v
    };
    let from_warc = links(&wp);
    assert_eq!(from_warc.len(), 5, "{from_warc:?}");
    assert_eq!(links(&tp), from_warc);
}

#[test]
fn warc_cli_binary_payloads_are_skipped_unless_binary_says_so() {
    // A DER certificate served as octet-stream, and a page.
    let cert =
        b"\x30\x82\x05\x10\x30\x82\x03\xf8\xa0\x03\x02\x01\x02 http://ocsp.verisign.com0\x06";
    let h = |ct: &str, body: &[u8]| {
        let mut v = format!("HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\n\r\n").into_bytes();
        v.extend_from_slice(body);
        v
    };
    let warc = [
        response(
            "http://ca.example/c.crt",
            &h("application/octet-stream", cert),
        ),
        response("http://ex.org/", &http("", b"<a href=/p>p</a>")),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bin.warc");
    std::fs::write(&path, &warc).unwrap();
    let file = path.to_str().unwrap();
    let (out, err, code) = run(&[file], None);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(String::from_utf8(out).unwrap(), "http://ex.org/p\n");
    let (out, _, _) = run(&["--binary", file], None);
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("http://ocsp.verisign.com0"), "{out}");
}

#[test]
fn warc_cli_record_type_content_type_and_status_filter_records() {
    let h = |status: &str, ct: &str, body: &str| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: {ct}\r\nLocation: /moved-{}\r\n\r\n{body}",
            &status[..3]
        )
        .into_bytes()
    };
    let resource = {
        let body = b"see http://res.example/";
        let mut r = format!(
            "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://res.example/f\r\n\
             Content-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        r.extend_from_slice(body);
        r.extend_from_slice(b"\r\n\r\n");
        r
    };
    let warc = [
        response(
            "http://a.example/",
            &h("200 OK", "text/html; charset=utf-8", "<a href=/a>a</a>"),
        ),
        response("http://b.example/", &h("301 Moved", "text/html", "")),
        response(
            "http://c.example/",
            &h("404 Not Found", "text/plain", "http://c.example/x"),
        ),
        response(
            "http://d.example/",
            &h("200 OK", "application/xhtml+xml", "<a href=/d>d</a>"),
        ),
        resource,
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.warc");
    std::fs::write(&path, &warc).unwrap();
    let file = path.to_str().unwrap();
    let hosts = |args: &[&str]| -> Vec<String> {
        let (out, err, code) = run(&[args, &["--format", "json", file]].concat(), None);
        assert!(code <= 1, "{args:?}: {err}");
        let mut v: Vec<String> = json_rows(&out)
            .iter()
            .map(|r| r["warc_target_uri"].as_str().unwrap().to_owned())
            .collect();
        v.dedup();
        v
    };
    let all = hosts(&[]);
    assert_eq!(all.len(), 5, "{all:?}");
    assert_eq!(
        hosts(&["--record-type", "resource"]),
        ["http://res.example/f"]
    );
    assert_eq!(hosts(&["--record-type", "Response"]).len(), 4);
    assert_eq!(
        hosts(&["--status", "2xx"]),
        ["http://a.example/", "http://d.example/"]
    );
    assert_eq!(
        hosts(&["--status", "301,404"]),
        ["http://b.example/", "http://c.example/"]
    );
    assert_eq!(
        hosts(&["--content-type", "text/html"]),
        ["http://a.example/", "http://b.example/"]
    );
    assert_eq!(
        hosts(&["--content-type", "application/xhtml,text/plain"]),
        [
            "http://c.example/",
            "http://d.example/",
            "http://res.example/f"
        ]
    );
    assert_eq!(
        hosts(&["--status", "2xx", "--content-type", "text/html"]),
        ["http://a.example/"]
    );
    let (_, err, code) = run(&["--status", "2x", file], None);
    assert_eq!(code, 2);
    assert!(err.contains("2x"), "{err}");
}

/// `warc_offset` and `warc_length` fetch a record by byte range: the slice
/// of the file they give, read alone, gives that record's links, with the
/// same fields (its offset 0).
#[test]
fn warc_cli_offset_and_length_slice_out_each_record() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "sample.warc.gz",
        "sample.warc",
        "others/warcio-example.warc.gz",
    ] {
        let file = std::fs::read(std::path::Path::new(DATA).join(name)).unwrap();
        let (out, err, code) = run(&["--format", "json", name], None);
        assert_eq!(code, 0, "{err}");
        let rows = json_rows(&out);
        let mut records: Vec<(u64, u64)> = rows
            .iter()
            .map(|r| {
                (
                    r["warc_offset"].as_u64().unwrap(),
                    r["warc_length"].as_u64().unwrap(),
                )
            })
            .collect();
        records.dedup();
        assert!(!records.is_empty(), "{name}");
        let strip = |r: &serde_json::Value| {
            let mut r = r.clone();
            let o = r.as_object_mut().unwrap();
            o.remove("file");
            o.remove("warc_offset");
            r
        };
        for (off, len) in records {
            let part = dir.path().join("part");
            std::fs::write(&part, &file[off as usize..(off + len) as usize]).unwrap();
            let (got, err, code) = run(&["--format", "json", part.to_str().unwrap()], None);
            assert_eq!(code, 0, "{name} at {off}: {err}");
            let got = json_rows(&got);
            assert!(got.iter().all(|r| r["warc_offset"] == 0), "{name} at {off}");
            let want: Vec<_> = rows
                .iter()
                .filter(|r| r["warc_offset"] == off)
                .map(strip)
                .collect();
            assert_eq!(
                got.iter().map(strip).collect::<Vec<_>>(),
                want,
                "{name} at {off}"
            );
        }
    }
}

/// `--stats` counts the payloads that gave no links: binary ones by class,
/// and those in formats with links that are not read; the same for every
/// thread count, and none with `--binary` (every payload is read then).
#[test]
fn warc_cli_stats_count_binary_and_out_of_scope_payloads() {
    let h = |ct: &str, body: &[u8]| {
        let mut v = format!("HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\n\r\n").into_bytes();
        v.extend_from_slice(body);
        v
    };
    let warc = [
        response(
            "http://a.example/1.png",
            &h("image/png", b"\x89PNG\r\n\x1a\n"),
        ),
        response(
            "http://a.example/2.png",
            &h("image/png", b"\x89PNG\r\n\x1a\n"),
        ),
        response(
            "http://a.example/f",
            &h("application/octet-stream", b"wOF2\x00\x01\x00\x00"),
        ),
        response(
            "http://a.example/d.pdf",
            &h("application/pdf", b"%PDF-1.4 http://in.pdf/"),
        ),
        response(
            "http://a.example/e",
            &h("application/octet-stream", b"%PDF-1.4\n\x01"),
        ),
        response(
            "http://a.example/w.doc",
            &h("application/msword", b"\xd0\xcf\x11\xe0"),
        ),
        response("http://a.example/", &http("", b"<a href=/p>p</a>")),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kinds.warc");
    std::fs::write(&path, &warc).unwrap();
    let file = path.to_str().unwrap();
    let stats = |args: &[&str]| {
        let mut all = vec!["--stats", file];
        all.extend_from_slice(args);
        let (out, err, code) = run(&all, None);
        assert_eq!(code, 0, "{err}");
        let lines: Vec<String> = err
            .lines()
            .filter(|l| l.contains("payloads"))
            .map(str::to_owned)
            .collect();
        (String::from_utf8(out).unwrap(), lines)
    };
    let want = vec![
        "urlsift: run: binary payloads skipped: 1 font, 2 image".to_owned(),
        "urlsift: run: payloads out of scope: 1 office, 2 pdf".to_owned(),
    ];
    for j in ["-j1", "-j2"] {
        let (out, lines) = stats(&[j]);
        assert_eq!(out, "http://a.example/p\n");
        assert_eq!(lines, want, "{j}");
    }
    // --binary scans every payload as text: none is skipped.
    let (out, lines) = stats(&["--binary"]);
    assert!(out.contains("http://in.pdf/"), "{out}");
    assert!(lines.is_empty(), "{lines:?}");
    // Without --stats, nothing is said of them.
    let (_, err, _) = run(&[file], None);
    assert!(!err.contains("payloads"), "{err}");
}
