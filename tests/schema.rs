//! One schema: `urlsift_printer::fields` is the only list of record fields.
//! What restates it elsewhere (the Python stub, the component fields of
//! `urlsift parse`, the man page) is checked here against it, so that any
//! drift fails a test. (Test names hold `_cli_` where they run the binary.)

use std::process::Command;

use urlsift_printer::fields::{FIELDS, Group, names};

const BIN: &str = env!("CARGO_BIN_EXE_urlsift");

/// The attributes of `class Match` in the Python stub, in order.
fn stub_match_attributes() -> Vec<String> {
    let stub = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/python/urlsift/_urlsift.pyi"
    ))
    .unwrap();
    let body = stub.split("\nclass Match").nth(1).expect("class Match");
    let body = body.split("\n    def ").next().unwrap_or_default();
    body.lines()
        .filter_map(|l| l.strip_prefix("    "))
        .filter_map(|l| l.split_once(':'))
        .map(|(name, _)| name.trim())
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        .map(str::to_owned)
        .collect()
}

#[test]
fn python_stub_lists_every_field_in_order() {
    let want: Vec<&str> = names(&[Group::Record, Group::Normalized])
        .filter(|&n| n != "file")
        .chain(names(&[Group::Mail]))
        .chain(names(&[Group::Web]))
        .collect();
    assert_eq!(stub_match_attributes(), want);
}

#[test]
fn parse_cli_components_are_fields_in_field_order() {
    let o = Command::new(BIN)
        .args(["parse", "http://u@Example.com:8/p?q#f"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The keys in the order written.
    let text = String::from_utf8_lossy(&o.stdout);
    let mut keys: Vec<&str> = v
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .filter(|k| !matches!(*k, "error" | "scheme_error"))
        .collect();
    keys.sort_by_key(|k| text.find(&format!("\"{k}\":")));
    // Each key a field of every record, in the fields' order.
    let order: Vec<&str> = names(&[Group::Record]).collect();
    let at: Vec<usize> = keys
        .iter()
        .map(|k| {
            order
                .iter()
                .position(|n| n == k)
                .unwrap_or_else(|| panic!("parse writes {k}, which is not a field"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
    // Every URI component and host key is there.
    for k in [
        "url",
        "valid",
        "scheme",
        "userinfo",
        "host",
        "host_kind",
        "port",
        "path",
        "query",
        "fragment",
        "host_ascii",
        "domain",
    ] {
        assert!(keys.contains(&k), "parse lacks {k}");
    }
}

#[test]
fn man_cli_describes_every_field_once() {
    let o = Command::new(BIN).arg("man").output().unwrap();
    let page = String::from_utf8(o.stdout).unwrap();
    let at = page.find(".SH \"JSON FIELDS\"").unwrap();
    let section = &page[at..];
    let section = &section[..section[1..].find(".SH").map_or(section.len(), |e| e + 1)];
    // The text as a reader sees it: roff's escapes undone.
    let section = section
        .replace("\\fB", "")
        .replace("\\fR", "")
        .replace("\\-", "-")
        .replace("\\*(Aq", "'")
        .replace("\\(dq", "\"")
        .replace("\\e", "\\");
    for f in &FIELDS {
        let n = section.matches(f.doc).count();
        assert!(n >= 1, "{} is not described", f.name);
        assert!(section.contains(f.name), "{} is not named", f.name);
    }
}
