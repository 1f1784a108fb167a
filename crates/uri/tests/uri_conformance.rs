//! Conformance of `urlsift_uri` against the imported vectors in
//! `tests/data/conformance/` (see its README for origins and licences).
//!
//! Every case is run. A case that fails must be listed, with its reason, in
//! `tests/data/uri_expected_failures.txt`; the test fails if an unlisted case
//! fails or a listed case passes (no silent skips).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;
use urlsift_uri::{self as uri, NormalizeOptions, UriRef, host};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");

fn load(rel: &str) -> Value {
    let path = format!("{DATA}conformance/{rel}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

/// One case: its id, and Ok or Err(what went wrong).
type Case = (String, Result<(), String>);

/// Results per suite.
#[derive(Default)]
struct Run {
    suites: BTreeMap<&'static str, Vec<Case>>,
}

impl Run {
    fn check(
        &mut self,
        suite: &'static str,
        id: String,
        got: impl std::fmt::Debug + PartialEq<String>,
        want: &str,
    ) {
        let r = if got == want.to_string() {
            Ok(())
        } else {
            Err(format!("got {got:?}, want {want:?}"))
        };
        self.push(suite, id, r);
    }

    /// Record a case; a repeated case (the upstream lists have a few) gets ` #2`, ` #3`...
    fn push(&mut self, suite: &'static str, id: String, r: Result<(), String>) {
        let cases = self.suites.entry(suite).or_default();
        let mut full = format!("{suite}/{id}");
        let mut k = 1;
        while cases.iter().any(|(i, _)| *i == full) {
            k += 1;
            full = format!("{suite}/{id} #{k}");
        }
        cases.push((full, r));
    }

    fn ok(&mut self, suite: &'static str, id: String, r: Result<(), String>) {
        self.push(suite, id, r);
    }
}

const SYNTAX: NormalizeOptions = NormalizeOptions {
    scheme_based: false,
    drop_fragment: false,
};

fn norm(input: &str, opts: &NormalizeOptions) -> String {
    uri::normalize(input.as_bytes(), opts).unwrap_or_else(|e| format!("error: {e}"))
}

fn res(base: &str, r: &str) -> String {
    uri::resolve(base.as_bytes(), r.as_bytes()).unwrap_or_else(|e| format!("error: {e}"))
}

/// RFC 3987 3.1 mapping of an expected IRI to its URI form (non-ASCII percent-encoded).
fn iri_to_uri(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b >= 0x80 {
            let _ = write!(out, "%{b:02X}");
        } else {
            out.push(b as char);
        }
    }
    out
}

fn rfc3986(run: &mut Run) {
    let d = load("rfc3986_section5.4/resolution_examples.json");
    let base = s(&d["base"]);
    for group in ["normal", "abnormal"] {
        for c in d[group].as_array().unwrap() {
            let (r, want) = (s(&c["ref"]), s(&c["expected"]));
            run.check("rfc3986", format!("resolve {r:?}"), res(base, r), want);
            let valid = UriRef::parse(r.as_bytes())
                .map(|_| ())
                .map_err(|e| e.to_string());
            run.ok("rfc3986", format!("parse {r:?}"), valid);
        }
    }
    let n = &d["notes"];
    for c in n["section_5.2.4_examples"].as_array().unwrap() {
        let mut out = Vec::new();
        uri::remove_dot_segments(s(&c["input"]).as_bytes(), &mut out);
        let got = String::from_utf8(out).unwrap();
        run.check(
            "rfc3986",
            format!("remove_dot_segments {:?}", s(&c["input"])),
            got,
            s(&c["remove_dot_segments"]),
        );
    }
    let c = &n["section_6.2.2_example"];
    run.check(
        "rfc3986",
        format!("normalize {:?}", s(&c["input"])),
        norm(s(&c["input"]), &SYNTAX),
        s(&c["normalized"]),
    );
    let eq = n["section_6.2.3_equivalent"].as_array().unwrap();
    let first = norm(s(&eq[0]), &NormalizeOptions::default());
    for e in eq {
        run.check(
            "rfc3986",
            format!("scheme-based {:?}", s(e)),
            norm(s(e), &NormalizeOptions::default()),
            &first,
        );
    }
}

fn foursuite(run: &mut Run) {
    let d = load("uriparser_uriparser/foursuite_vectors.json");
    for (group, cases) in d["groups"].as_object().unwrap() {
        for c in cases.as_array().unwrap() {
            match s(&c["op"]) {
                "resolve" => {
                    let (b, r) = (s(&c["base"]), s(&c["ref"]));
                    run.check(
                        "foursuite",
                        format!("{group} {b:?} + {r:?}"),
                        res(b, r),
                        s(&c["expected"]),
                    );
                }
                "relativize" => {
                    let (b, t) = (s(&c["base"]), s(&c["target"]));
                    let dr = c["domain_root_mode"].as_bool().unwrap();
                    let got = uri::relativize(b.as_bytes(), t.as_bytes(), dr)
                        .unwrap_or_else(|e| format!("error: {e}"));
                    run.check(
                        "foursuite",
                        format!("{group} {b:?} -> {t:?} root={dr}"),
                        got,
                        s(&c["expected"]),
                    );
                }
                "parse" => {
                    let input = s(&c["input"]);
                    let got = match UriRef::parse(input.as_bytes()) {
                        Ok(_) => "valid".to_string(),
                        Err(e) => format!("invalid at {}", e.index),
                    };
                    let want = match c["error_offset"].as_u64() {
                        Some(o) => format!("invalid at {o}"),
                        None => "valid".to_string(),
                    };
                    run.check("foursuite", format!("{group} {input:?}"), got, &want);
                }
                "normalize" => {
                    let input = s(&c["input"]);
                    run.check(
                        "foursuite",
                        format!("{group} {input:?}"),
                        norm(input, &SYNTAX),
                        s(&c["expected"]),
                    );
                }
                op => panic!("unknown op {op}"),
            }
        }
    }
}

fn components_of(u: &UriRef<'_>) -> BTreeMap<&'static str, String> {
    let mut m = BTreeMap::new();
    let st = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    if let Some(x) = u.scheme() {
        m.insert("scheme", st(x));
    }
    if let Some(ui) = u.userinfo() {
        let (user, pass) = match ui.iter().position(|&b| b == b':') {
            Some(p) => (&ui[..p], Some(&ui[p + 1..])),
            None => (ui, None),
        };
        m.insert("user", st(user));
        if let Some(p) = pass {
            m.insert("password", st(p));
        }
    }
    if let Some(x) = u.host() {
        m.insert("host", st(x));
    }
    if let Some(x) = u.port() {
        m.insert("port", st(x));
    }
    m.insert("path", st(u.path()));
    if let Some(x) = u.query() {
        m.insert("query", st(x));
    }
    if let Some(x) = u.fragment() {
        m.insert("fragment", st(x));
    }
    m
}

fn iri_string(run: &mut Run) {
    let d = load("lo48576_iri-string/components_vectors.json");
    for c in d["cases"].as_array().unwrap() {
        let input = s(&c["composed"]);
        let mut want: BTreeMap<&str, String> = c["components"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.as_str(), s(v).to_string()))
            .collect();
        // The extract leaves out an empty path; a path is always present.
        want.entry("path").or_default();
        let split = components_of(&UriRef::split(input.as_bytes()));
        let got_split: BTreeMap<&str, String> =
            split.iter().map(|(k, v)| (*k, v.clone())).collect();
        run.check(
            "iri-string",
            format!("split {input:?}"),
            format!("{got_split:?}"),
            &format!("{want:?}"),
        );
        let parsed = match UriRef::parse_iri(input.as_bytes()) {
            Ok(u) => format!("{:?}", components_of(&u)),
            Err(e) => format!("error: {e}"),
        };
        run.check(
            "iri-string",
            format!("parse_iri {input:?}"),
            parsed,
            &format!("{want:?}"),
        );
        let want_n = iri_to_uri(s(&c["normalized_uri"]));
        run.check(
            "iri-string",
            format!("normalize {input:?}"),
            norm(input, &SYNTAX),
            &want_n,
        );
    }
    let d = load("lo48576_iri-string/resolve_vectors.json");
    for c in d["resolve"].as_array().unwrap() {
        let (b, r) = (s(&c["base"]), s(&c["ref"]));
        let got = res(b, r);
        run.check(
            "iri-string",
            format!("resolve {b:?} + {r:?}"),
            got.clone(),
            s(&c["expected"]),
        );
        let want_n = iri_to_uri(
            c["expected_normalized"]
                .as_str()
                .unwrap_or(s(&c["expected"])),
        );
        run.check(
            "iri-string",
            format!("resolve+normalize {b:?} + {r:?}"),
            norm(&got, &SYNTAX),
            &want_n,
        );
    }
    for c in d["percent_encoded_dots"].as_array().unwrap() {
        let (b, r) = (s(&c["base"]), s(&c["ref"]));
        run.check(
            "iri-string",
            format!("resolve %2E {b:?} + {r:?}"),
            res(b, r),
            s(&c["expected"]),
        );
    }
}

fn fluent(run: &mut Run) {
    let d = load("yescallop_fluent-uri-rs/normalize_resolve_vectors.json");
    for c in d["normalize"].as_array().unwrap() {
        let input = s(&c["input"]);
        run.check(
            "fluent-uri",
            format!("normalize {input:?}"),
            norm(input, &SYNTAX),
            &iri_to_uri(s(&c["expected"])),
        );
    }
    for c in d["resolve"].as_array().unwrap() {
        let (b, r) = (s(&c["base"]), s(&c["ref"]));
        let want = match c.get("expected") {
            Some(e) => s(e).to_string(),
            None => format!("error {}", s(&c["error"])),
        };
        run.check(
            "fluent-uri",
            format!("resolve {b:?} + {r:?}"),
            res(b, r),
            &want,
        );
    }
    // Underflow: we clamp at the root as RFC 3986 5.2.4 does (fluent-uri's
    // allow_path_underflow(true)); the strict PathUnderflow mode is not offered.
    for c in d["resolve_underflow"].as_array().unwrap() {
        let (b, r) = (s(&c["base"]), s(&c["ref"]));
        assert_eq!(c["allow_underflow_ok"], Value::Bool(true));
        let ok = uri::resolve(b.as_bytes(), r.as_bytes())
            .map(|_| ())
            .map_err(|e| e.to_string());
        run.ok("fluent-uri", format!("resolve underflow {b:?} + {r:?}"), ok);
    }
}

fn golang(run: &mut Run) {
    let d = load("golang_go/resolve_reference_extras.json");
    for c in d["cases"].as_array().unwrap() {
        let (b, r) = (s(&c["base"]), s(&c["ref"]));
        run.check(
            "go",
            format!("resolve {b:?} + {r:?}"),
            res(b, r),
            s(&c["expected"]),
        );
    }
}

fn json_schema(run: &mut Run) {
    type Check = fn(&str) -> bool;
    let formats: [(&str, Check); 6] = [
        ("uri", |t| {
            UriRef::parse(t.as_bytes()).is_ok_and(|u| u.is_absolute())
        }),
        ("uri-reference", |t| UriRef::parse(t.as_bytes()).is_ok()),
        ("iri", |t| {
            UriRef::parse_iri(t.as_bytes()).is_ok_and(|u| u.is_absolute())
        }),
        ("iri-reference", |t| UriRef::parse_iri(t.as_bytes()).is_ok()),
        ("ipv4", |t| host::is_ipv4(t.as_bytes())),
        ("ipv6", |t| host::is_ipv6(t.as_bytes())),
    ];
    for (name, f) in formats {
        let d = load(&format!(
            "json-schema-org_JSON-Schema-Test-Suite/{name}.json"
        ));
        for g in d.as_array().unwrap() {
            for t in g["tests"].as_array().unwrap() {
                // Non-string data ("all string formats ignore integers") is not about URIs.
                let Some(data) = t["data"].as_str() else {
                    continue;
                };
                let want = if t["valid"].as_bool().unwrap() {
                    "valid"
                } else {
                    "invalid"
                };
                let got = if f(data) { "valid" } else { "invalid" };
                run.check(
                    "json-schema",
                    format!("{name} {data:?}"),
                    got.to_string(),
                    want,
                );
            }
        }
    }
}

fn python_hyper(run: &mut Run) {
    let d = load("python-hyper_rfc3986/conftest_host_lists.json");
    let l = &d["lists"];
    for (list, want) in [("valid_hosts", "valid"), ("invalid_hosts", "invalid")] {
        for h in l[list].as_array().unwrap() {
            let h = s(h);
            let got = if UriRef::parse(format!("http://{h}/").as_bytes()).is_ok() {
                "valid"
            } else {
                "invalid"
            };
            run.check("python-hyper", format!("host {h:?}"), got.to_string(), want);
        }
    }
    for (list, pre, post) in [
        ("equivalent_hostnames", "http://", "/"),
        ("equivalent_schemes", "", "://example.com/"),
    ] {
        let items = l[list].as_array().unwrap();
        let first = norm(
            &format!("{pre}{}{post}", s(&items[0])),
            &NormalizeOptions::default(),
        );
        for h in items {
            let input = format!("{pre}{}{post}", s(h));
            run.check(
                "python-hyper",
                format!("{list} {input:?}"),
                norm(&input, &NormalizeOptions::default()),
                &first,
            );
        }
    }
}

#[test]
fn conformance() {
    let mut run = Run::default();
    rfc3986(&mut run);
    foursuite(&mut run);
    iri_string(&mut run);
    fluent(&mut run);
    golang(&mut run);
    json_schema(&mut run);
    python_hyper(&mut run);

    let listed_text =
        std::fs::read_to_string(format!("{DATA}uri_expected_failures.txt")).unwrap_or_default();
    let mut listed = BTreeSet::new();
    for line in listed_text.lines() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (id, reason) = line
            .rsplit_once(" | ")
            .unwrap_or_else(|| panic!("no ' | reason' in: {line}"));
        assert!(!reason.trim().is_empty(), "no reason for {id}");
        assert!(listed.insert(id.to_string()), "listed twice: {id}");
    }

    let mut problems = String::new();
    let mut seen = BTreeSet::new();
    println!(
        "{:<14} {:>6} {:>9} {:>6}",
        "suite", "cases", "expected", "passed"
    );
    for (suite, cases) in &run.suites {
        let (mut pass, mut xfail) = (0, 0);
        for (id, r) in cases {
            assert!(seen.insert(id.clone()), "duplicate case id {id}");
            match (r, listed.contains(id)) {
                (Ok(()), false) => pass += 1,
                (Err(_), true) => xfail += 1,
                (Ok(()), true) => {
                    let _ = writeln!(problems, "PASSES but listed as expected failure: {id}");
                }
                (Err(e), false) => {
                    let _ = writeln!(problems, "FAILS: {id} | {e}");
                }
            }
        }
        println!("{suite:<14} {:>6} {xfail:>9} {pass:>6}", cases.len());
    }
    for id in listed.difference(&seen) {
        let _ = writeln!(problems, "listed but no such case: {id}");
    }
    assert!(problems.is_empty(), "\n{problems}");
}
