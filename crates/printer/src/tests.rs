//! The printer's tests, and the reference writers they check the fast
//! ones against: the serde `Row` for JSON Lines and a `csv::Writer` per
//! record for CSV/TSV.

use super::*;
use crate::MailWhere;
use crate::pipeline::Writer;
use proptest::prelude::*;
use urlsift_core::Style;

/// The reference JSON Lines writer: serde over [`Row`].
fn old_json(rec: &Record<'_, '_>, normalize: Option<KeyLevel>) -> Vec<u8> {
    let mut v = serde_json::to_vec(&row(rec, normalize)).unwrap();
    v.push(b'\n');
    v
}

/// The reference CSV/TSV writer: a `csv::Writer` per record, with the
/// header row first if `header`.
fn old_csv(rec: &Record<'_, '_>, normalize: Option<KeyLevel>, tsv: bool, header: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = csv::WriterBuilder::new()
        .delimiter(if tsv { b'\t' } else { b',' })
        .quote_style(if tsv {
            csv::QuoteStyle::Never
        } else {
            csv::QuoteStyle::Necessary
        })
        .from_writer(&mut out);
    if header {
        w.write_record(header_fields(normalize.is_some(), false))
            .unwrap();
    }
    w.write_record(csv_fields(rec, normalize, tsv)).unwrap();
    w.flush().unwrap();
    drop(w);
    out
}

/// Format `rec` in every format and normalization, with a fresh
/// formatter (header row) and a used one (no header), and compare with
/// the reference writers.
fn check(rec: &Record<'_, '_>) {
    for normalize in [
        None,
        Some(KeyLevel::Raw),
        Some(KeyLevel::Syntax),
        Some(KeyLevel::Scheme),
        Some(KeyLevel::NoFragment),
        Some(KeyLevel::Whatwg),
        Some(KeyLevel::Surt),
    ] {
        for format in [Format::Json, Format::Csv, Format::Tsv] {
            let opts = Options {
                format,
                normalize: normalize.is_some(),
                dedup_key: normalize.unwrap_or_default(),
                ..Options::default()
            };
            let mut f = Formatter::new(&opts);
            let level = f.normal_level();
            let normalize = normalize.map(|_| level);
            for header in [true, false] {
                let mut got = Vec::new();
                f.format(rec, &mut got).unwrap();
                let want = match format {
                    Format::Json => old_json(rec, normalize),
                    _ => old_csv(rec, normalize, format == Format::Tsv, header),
                };
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{format:?} {normalize:?} header {header}: {rec:?}"
                );
            }
        }
    }
}

fn mail() -> MailWhere {
    MailWhere {
        message: 3,
        message_id: Some("a\"b\\c@x".into()),
        message_offset: 10,
        part: 2,
        content_type: "text/plain".into(),
        part_offset: 99,
        part_start: 5,
        part_line: 2,
    }
}

/// The keys of one JSON object, in order.
fn json_keys(line: &[u8]) -> Vec<String> {
    let v: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(line).unwrap();
    // serde_json keeps the order only with preserve_order: read the keys off
    // the text instead, in order, checking they are the map's.
    let text = String::from_utf8(line.to_vec()).unwrap();
    let mut keys: Vec<(usize, String)> = v
        .keys()
        .map(|k| (text.find(&format!("\"{k}\":")).unwrap(), k.clone()))
        .collect();
    keys.sort();
    keys.into_iter().map(|(_, k)| k).collect()
}

#[test]
fn writers_write_the_fields_in_their_defined_order() {
    use crate::fields::{Group, names};
    let text = b"see http://a.example/x";
    let m = &urlsift_core::find(text).collect::<Vec<_>>()[0];
    let w = mail();
    let web = WebWhere::default();
    for (normalize, mail_, web_) in [
        (false, None, None),
        (true, None, None),
        (false, Some(&w), None),
        (true, None, Some(&web)),
    ] {
        let mut groups = vec![Group::Record];
        if normalize {
            groups.push(Group::Normalized);
        }
        if mail_.is_some() {
            groups.push(Group::Mail);
        }
        if web_.is_some() {
            groups.push(Group::Web);
        }
        let rec = Record {
            file: "f",
            line: 1,
            m,
            mail: mail_,
            web: web_,
        };
        let opts = Options {
            format: Format::Json,
            normalize,
            ..Options::default()
        };
        let mut out = Vec::new();
        Formatter::new(&opts).format(&rec, &mut out).unwrap();
        assert_eq!(json_keys(&out), names(&groups).collect::<Vec<_>>());
        if mail_.is_none() && web_.is_none() {
            // CSV/TSV: the web columns, whatever the record.
            groups.push(Group::Web);
            let opts = Options {
                format: Format::Csv,
                normalize,
                ..Options::default()
            };
            let mut out = Vec::new();
            write_header(&opts, &mut out).unwrap();
            let header = String::from_utf8(out).unwrap();
            assert_eq!(
                header.trim_end().split(',').collect::<Vec<_>>(),
                names(&groups).collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn writers_match_the_serde_rows_on_extracted_urls() {
    let text = b"see http://a.example/x,y\"z and http://b.example/\\back\\slash, \
        http://c.example/\xff\xfe/p?q=\xc3\xa9#fr www.d.example/a,b \
        <http://e.example/wrapped\n  /more> http://[::1]:80/v6 mailto:user@x.example \
        http://u:p@h.example:8080/p?q#f <URL:ftp://f.example/\xe4\xb8\xad> \
        http://g.example/%7E%41?Q=%2f#%5B HTTP://H.EXAMPLE:80/a/./b/../c \
        http://B\xc3\xbccher.example/i http://xn--bcher-kva.Example/j";
    let ms = urlsift_core::find(text).collect::<Vec<_>>();
    assert!(ms.len() >= 10, "{ms:?}");
    let w = mail();
    for m in &ms {
        for file in [
            "f",
            "we,ird\"na\tme",
            "new\nline",
            "cr\r",
            "back\\slash",
            "ctl\x01",
            "x\x1f",
            "0123456\x1f",
            "é",
        ] {
            for mail in [None, Some(&w)] {
                check(&Record {
                    file,
                    line: 7,
                    m,
                    mail,
                    web: None,
                });
            }
        }
    }
}

#[test]
fn unique_normalize_prints_each_key_once_in_normal_form() {
    let text = b"HTTP://A.example:80/%7e x http://a.example/~ y www.B.example/p#f \
        http://www.b.example/p#g http://c.example/";
    for (level, want) in [
        (
            KeyLevel::Scheme,
            "http://a.example/~\nhttp://www.b.example/p#f\nhttp://www.b.example/p#g\nhttp://c.example/\n",
        ),
        (
            KeyLevel::NoFragment,
            "http://a.example/~\nhttp://www.b.example/p\nhttp://c.example/\n",
        ),
        (
            KeyLevel::Raw,
            "http://a.example/~\nhttp://a.example/~\nhttp://www.b.example/p#f\nhttp://www.b.example/p#g\nhttp://c.example/\n",
        ),
    ] {
        let mut out = Vec::new();
        {
            let opts = Options {
                unique: true,
                normalize: true,
                dedup_key: level,
                ..Options::default()
            };
            let mut sink = Writer::new(&opts, &mut out);
            for m in urlsift_core::find(text) {
                sink.record(&Record {
                    file: "-",
                    line: 1,
                    m: &m,
                    mail: None,
                    web: None,
                })
                .unwrap();
            }
            sink.finish().unwrap();
        }
        assert_eq!(String::from_utf8_lossy(&out), want, "{level:?}");
    }
}

proptest! {
    #[test]
    fn writers_match_the_serde_rows_on_any_bytes(
        url in proptest::collection::vec(
            prop_oneof![any::<u8>(), Just(b'"'), Just(b'\\'), Just(b'\t'), Just(b'\r'), Just(0x1f), Just(b':'), Just(b'/'), Just(b'?'), Just(b'#'), Just(b'@'), Just(b'[')],
            0..40,
        ),
        prefix in prop_oneof![
            Just(&b""[..]), Just(&b"http://"[..]), Just(&b"http://[::1"[..]), Just(&b"www."[..]),
            Just(&b"http://a.b-c_d.co.uk"[..]), Just(&b"http://xn--a.example"[..]), Just(&b"HTTP://A.Example"[..]),
        ],
        www in any::<bool>(),
        ambiguous in any::<bool>(),
        start in any::<u32>(),
        file in "[a-z,\"\t\r\n\x1f\\\\]{0,10}",
    ) {
        let mut u = prefix.to_vec();
        u.extend_from_slice(&url);
        let m = Match {
            start: start as usize,
            end: start as usize + u.len(),
            url: Cow::Owned(u),
            style: Style::Angle,
            kind: if www { Kind::Www } else { Kind::Uri },
            ambiguous,
        };
        check(&Record { file: &file, line: 1, m: &m, mail: None, web: None });
    }
}

fn lossy(b: Option<&[u8]>) -> Option<String> {
    b.map(|b| String::from_utf8_lossy(b).into_owned())
}

/// One JSON Lines / CSV row, as serde writes it: the reference of
/// [`write_json`] and [`write_csv`].
#[derive(serde::Serialize)]
struct Row<'a> {
    file: &'a str,
    start: usize,
    end: usize,
    line: u64,
    url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    normalized: Option<Option<String>>,
    style: &'static str,
    kind: &'static str,
    valid: bool,
    ambiguous: bool,
    scheme: Option<String>,
    userinfo: Option<String>,
    host: Option<String>,
    host_kind: Option<&'static str>,
    port: Option<String>,
    path: String,
    query: Option<String>,
    fragment: Option<String>,
    host_ascii: Option<String>,
    domain: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    mail: Option<&'a MailWhere>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    web: Option<&'a WebWhere>,
}

fn row<'a>(rec: &Record<'a, '_>, normalize: Option<KeyLevel>) -> Row<'a> {
    let parts = Parts::new(rec.m);
    let u = parts.uri();
    // The keys crate's own answer (not the printer's shortcut for hosts
    // that are their own ASCII form).
    let host_ascii = u
        .host()
        .filter(|h| !h.is_empty())
        .and_then(urlsift_keys::host_ascii);
    let domain = match (u.host_kind(), &host_ascii) {
        (Some(urlsift_uri::HostKind::RegName), Some(a)) => {
            urlsift_keys::host::registrable_domain(a).map(str::to_owned)
        }
        _ => None,
    };
    Row {
        host_ascii,
        domain,
        file: rec.file,
        start: rec.m.start,
        end: rec.m.end,
        line: rec.line,
        url: rec.m.url_str().into_owned(),
        normalized: normalize.map(|l| parts.normalized_at(l)),
        style: <&str>::from(rec.m.style),
        kind: <&str>::from(rec.m.kind),
        valid: u.validate().is_ok(),
        ambiguous: rec.m.ambiguous,
        scheme: lossy(u.scheme()),
        userinfo: lossy(u.userinfo()),
        host: lossy(u.host()),
        host_kind: u.host_kind().map(|k| k.as_str()),
        port: lossy(u.port()),
        path: String::from_utf8_lossy(u.path()).into_owned(),
        query: lossy(u.query()),
        fragment: lossy(u.fragment()),
        mail: rec.mail,
        web: rec.web,
    }
}

/// The CSV/TSV fields of one record (TSV has no quoting: tabs and newlines
/// inside a field become spaces).
fn csv_fields(rec: &Record<'_, '_>, normalize: Option<KeyLevel>, tsv: bool) -> Vec<String> {
    let r = row(rec, normalize);
    let o = |s: &Option<String>| s.clone().unwrap_or_default();
    let mut f = vec![
        r.file.to_string(),
        r.start.to_string(),
        r.end.to_string(),
        r.line.to_string(),
        r.url.clone(),
    ];
    if let Some(n) = &r.normalized {
        f.push(o(n));
    }
    f.extend([
        r.style.to_string(),
        r.kind.to_string(),
        r.valid.to_string(),
        r.ambiguous.to_string(),
        o(&r.scheme),
        o(&r.userinfo),
        o(&r.host),
        r.host_kind.unwrap_or("").to_string(),
        o(&r.port),
        r.path.clone(),
        o(&r.query),
        o(&r.fragment),
        o(&r.host_ascii),
        o(&r.domain),
    ]);
    // The web columns, always; empty for a record that is not a web link.
    let w = r.web.cloned().unwrap_or_default();
    f.extend([
        o(&w.found),
        w.source.to_string(),
        w.source_name.as_deref().unwrap_or("").to_string(),
        o(&w.warc_target_uri),
        o(&w.warc_record_id),
        o(&w.warc_date),
        o(&w.warc_type),
        w.warc_offset.map(|n| n.to_string()).unwrap_or_default(),
        w.warc_length.map(|n| n.to_string()).unwrap_or_default(),
        w.http_status.map(|n| n.to_string()).unwrap_or_default(),
        o(&w.rel),
    ]);
    if tsv {
        for s in &mut f {
            if s.contains(['\t', '\n', '\r']) {
                *s = s.replace(['\t', '\n', '\r'], " ");
            }
        }
    }
    f
}

/// Text with the bytes JSON escapes (quotes, backslashes, controls) and
/// non-ASCII.
fn awkward() -> impl Strategy<Value = Option<String>> {
    proptest::option::of("(?s)[a-z\"\\\\\u{0}-\u{1f}\u{7f}é😀 ]{0,12}")
}

proptest! {
    #[test]
    fn web_fields_are_written_as_serde_writes_them(
        found in awkward(),
        name in awkward(),
        target in awkward(),
        id in awkward(),
        date in awkward(),
        ty in awkward(),
        offset in proptest::option::of(any::<u64>()),
        length in proptest::option::of(any::<u64>()),
        status in proptest::option::of(any::<u16>()),
        rel in awkward(),
        source in prop::sample::select(vec!["text", "attribute", "header", "a\"b"]),
    ) {
        let w = WebWhere {
            found,
            source,
            source_name: name.map(Cow::Owned),
            warc_target_uri: target,
            warc_record_id: id,
            warc_date: date,
            warc_type: ty,
            warc_offset: offset,
            warc_length: length,
            http_status: status,
            rel,
        };
        let mut out = Vec::new();
        write_web_json(&w, &mut out);
        let mut want = serde_json::to_vec(&w).unwrap();
        want[0] = b',';
        prop_assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(want).unwrap());
    }
}

proptest! {
    #[test]
    fn writers_match_the_serde_rows_with_web_fields(
        found in awkward(),
        name in awkward(),
        target in awkward(),
        offset in proptest::option::of(any::<u64>()),
        rel in awkward(),
        file in "(?s)[a-z,\"\t\n ]{0,6}",
    ) {
        let m = &urlsift_core::find(b"see http://a.example/x?y").collect::<Vec<_>>()[0];
        let w = WebWhere {
            found,
            source: "attribute",
            source_name: name.map(Cow::Owned),
            warc_target_uri: target,
            warc_record_id: Some("<urn:uuid:1>".into()),
            warc_date: None,
            warc_type: offset.map(|_| "response".into()),
            warc_offset: offset,
            warc_length: offset.map(|o| o / 3),
            http_status: offset.map(|o| (o % 600) as u16),
            rel,
        };
        check(&Record { file: &file, line: 3, m, mail: None, web: Some(&w) });
    }
}

proptest! {
    #[test]
    fn hosts_of_their_own_ascii_form_are_what_the_keys_crate_says(
        host in "(xn--|[a-z0-9._-]){0,6}[a-z0-9._-]{0,12}",
    ) {
        let h = host.as_bytes();
        let kind = Some(urlsift_uri::HostKind::RegName);
        let (ascii, domain) = host_keys(Some(h), kind);
        let want = Some(h).filter(|h| !h.is_empty()).and_then(urlsift_keys::host_ascii);
        let want_domain = want
            .as_deref()
            .and_then(urlsift_keys::host::registrable_domain)
            .map(str::to_owned);
        prop_assert_eq!(&ascii, &want);
        prop_assert_eq!(&domain, &want_domain);
        if own_ascii_form(h) && !h.is_empty() {
            prop_assert_eq!(ascii.as_deref(), Some(host.as_str()));
        }
    }
}

#[test]
fn has_upper_finds_each_upper_case_letter_at_any_place() {
    for len in 1..20 {
        for at in 0..len {
            // Every byte value at `at`, among bytes that are neither upper
            // case nor, in turn, ASCII.
            for bg in [b'a', 0xC3] {
                for c in 0..=255u8 {
                    let mut v = vec![bg; len];
                    v[at] = c;
                    assert_eq!(has_upper(&v), c.is_ascii_uppercase(), "{v:?}");
                }
            }
        }
    }
}

#[test]
fn hosts_already_lower_case_are_keys_as_they_are() {
    let text = b"http://a.example/ http://B.Example/ www.c.EXAMPLE x";
    let keys: Vec<Vec<u8>> = urlsift_core::find(text)
        .map(|m| host_key(&m).unwrap())
        .collect();
    assert_eq!(keys, [&b"a.example"[..], b"b.example", b"www.c.example"]);
}

#[test]
fn csv_special_finds_each_byte_at_any_place() {
    for tsv in [false, true] {
        for len in 0..20 {
            assert!(!csv_special(&vec![b'a'; len], tsv));
            for at in 0..len {
                for c in [b',', b'"', b'\t', b'\n', b'\r'] {
                    let mut v = vec![b'a'; len];
                    v[at] = c;
                    let want = if tsv {
                        c != b',' && c != b'"'
                    } else {
                        c != b'\t'
                    };
                    assert_eq!(csv_special(&v, tsv), want, "{tsv} {v:?}");
                }
            }
        }
    }
}

proptest! {
    #[test]
    fn the_domain_cache_answers_as_the_public_suffix_list(
        hosts in proptest::collection::vec("(www\\.|a\\.|[a-z]{1,3}\\.){0,3}(co\\.uk|com|github\\.io|uk|[a-z]{1,2})\\.?", 1..40),
    ) {
        let mut cache = DomainCache::default();
        // Twice: the first time fills the slots, the second reads them.
        for h in hosts.iter().chain(&hosts) {
            prop_assert_eq!(cache.get(h), urlsift_keys::host::registrable_domain(h), "{}", h);
        }
    }
}

#[test]
fn the_domain_cache_keeps_colliding_hosts_apart() {
    let mut cache = DomainCache::default();
    let hosts: Vec<String> = (0..5000).map(|i| format!("h{i}.example.co.uk")).collect();
    for h in hosts.iter().chain(&hosts) {
        assert_eq!(
            cache.get(h),
            urlsift_keys::host::registrable_domain(h),
            "{h}"
        );
    }
    assert_eq!(cache.get("x.github.io"), Some("x.github.io"));
    assert_eq!(cache.get("github.io"), None);
    assert_eq!(cache.get("github.io"), None);
}

#[test]
fn count_rows_are_what_format_writes() {
    for count in [
        0,
        1,
        9,
        10,
        999_999,
        1_000_000,
        9_999_999,
        10_000_000,
        u64::MAX,
    ] {
        for len in [0, 1, 10, 23, 24, 25, 40] {
            let key = vec![b'k'; len];
            let mut out = Vec::new();
            write_count_row(&mut out, count, &key).unwrap();
            let want = format!("{count:>7} {}\n", String::from_utf8_lossy(&key));
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }
}

#[test]
fn the_byte_flags_find_each_byte_at_any_place() {
    let want = |v: &[u8]| Bytes {
        non_ascii: v.iter().any(|&c| c >= 0x80),
        json: !v.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\'),
        csv: !v.iter().any(|&c| c < 0x20 || c == b'"' || c == b','),
        tsv: !v.iter().any(|&c| c < 0x20),
    };
    for len in 0..20 {
        assert_eq!(Bytes::of(&vec![b'a'; len]), want(&vec![b'a'; len]));
        for at in 0..len {
            // Every byte value at `at`, among bytes that are ASCII and
            // none of the others, or all 0xFF (no byte borrows into the
            // next).
            for bg in [b'a', 0xFF] {
                for c in 0..=255u8 {
                    let mut v = vec![bg; len];
                    v[at] = c;
                    assert_eq!(Bytes::of(&v), want(&v), "{v:?}");
                }
            }
        }
    }
}

#[test]
fn the_domain_cache_answers_for_hosts_of_every_length() {
    let mut cache = DomainCache::default();
    // Around the longest host a slot holds, and hosts that are prefixes
    // of one another.
    let hosts: Vec<String> = (1..=80)
        .flat_map(|n| {
            let label = "b".repeat(n);
            [format!("{label}.co.uk"), format!("{label}.co"), label]
        })
        .collect();
    for h in hosts.iter().chain(&hosts) {
        assert_eq!(
            cache.get(h),
            urlsift_keys::host::registrable_domain(h),
            "{h}"
        );
    }
}
