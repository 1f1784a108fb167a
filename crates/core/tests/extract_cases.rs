//! Table-driven tests of the delimiting rules (RFC 3986 Appendix C, RFC 2396
//! Appendix E).
//!
//! The cases live in `tests/data/extract_cases.json`: an array of
//! `{"name", "rule", "input", "expect": [{"url", "style"?, "kind"?, "ambiguous"?, "start"?, "end"?}]}`.
//! `rule` starts with a short rule id (`trim: ...`); the text after the colon says
//! which spec clause, or which documented choice, the expectation comes from.
//! Optional fields are checked only when present.
//!
//! Every case is run; all failures are collected and reported together.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;
use urlsift_core::Match;

/// Every URL in `hay`, in input order.
fn extract(hay: &[u8]) -> Vec<Match<'_>> {
    urlsift_core::find(hay).collect()
}

const CASES: &str = include_str!("data/extract_cases.json");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    rule: String,
    input: String,
    expect: Vec<Expected>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    url: String,
    style: Option<String>,
    kind: Option<String>,
    ambiguous: Option<bool>,
    start: Option<usize>,
    end: Option<usize>,
}

fn load() -> Vec<Case> {
    serde_json::from_str(CASES).expect("tests/data/extract_cases.json is not valid")
}

/// The rule id: the text of `rule` before the first ':'.
fn rule_id(rule: &str) -> &str {
    rule.split(':').next().unwrap_or(rule).trim()
}

fn without_whitespace(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

fn describe(m: &Match<'_>) -> String {
    format!(
        "{:?} [{}..{}] style={} kind={} ambiguous={}",
        String::from_utf8_lossy(&m.url),
        m.start,
        m.end,
        <&str>::from(m.style),
        <&str>::from(m.kind),
        m.ambiguous
    )
}

/// Checks one case; returns the list of problems (empty when it passes).
fn check(case: &Case) -> Vec<String> {
    let hay = case.input.as_bytes();
    let got = extract(hay);
    let mut problems = Vec::new();

    // Structural invariants that hold for every match.
    let mut prev_end = 0usize;
    for (i, m) in got.iter().enumerate() {
        if m.start > m.end || m.end > hay.len() {
            problems.push(format!(
                "match {i}: span {}..{} out of bounds (input is {} bytes)",
                m.start,
                m.end,
                hay.len()
            ));
            continue;
        }
        if m.start < prev_end {
            problems.push(format!("match {i}: starts at {} before the previous match ends at {prev_end} (overlap or out of order)", m.start));
        }
        prev_end = m.end;
        let raw = &hay[m.start..m.end];
        let url = String::from_utf8_lossy(&m.url);
        // A wrapped URL (angle, url-prefix, or a quoted attribute value that was
        // joined, DESIGN) equals its span with whitespace removed; any other
        // match is the span itself.
        let joinable = matches!(<&str>::from(m.style), "angle" | "url-prefix" | "quoted");
        if joinable {
            let joined = without_whitespace(raw);
            if joined != url {
                problems.push(format!(
                    "match {i}: input[{}..{}] without whitespace is {joined:?}, but url is {url:?}",
                    m.start, m.end
                ));
            }
        } else if raw != &m.url[..] {
            problems.push(format!(
                "match {i}: input[{}..{}] is {:?}, but url is {url:?} (a {} match must be the span itself)",
                m.start,
                m.end,
                String::from_utf8_lossy(raw),
                <&str>::from(m.style)
            ));
        }
        if m.ambiguous && !joinable {
            problems.push(format!("match {i}: ambiguous is only for URLs joined across a hyphenated line break, got a {} match", <&str>::from(m.style)));
        }
    }

    let got_urls: Vec<String> = got
        .iter()
        .map(|m| String::from_utf8_lossy(&m.url).into_owned())
        .collect();
    let want_urls: Vec<&str> = case.expect.iter().map(|e| e.url.as_str()).collect();
    if got_urls != want_urls {
        problems.push(format!("urls: expected {want_urls:?}, got {got_urls:?}"));
        if !got.is_empty() {
            let all: Vec<String> = got.iter().map(describe).collect();
            problems.push(format!("matches: {}", all.join("; ")));
        }
        return problems;
    }

    for (i, (m, e)) in got.iter().zip(&case.expect).enumerate() {
        if let Some(style) = &e.style
            && <&str>::from(m.style) != style
        {
            problems.push(format!(
                "match {i} {:?}: style expected {style}, got {}",
                e.url,
                <&str>::from(m.style)
            ));
        }
        if let Some(kind) = &e.kind
            && <&str>::from(m.kind) != kind
        {
            problems.push(format!(
                "match {i} {:?}: kind expected {kind}, got {}",
                e.url,
                <&str>::from(m.kind)
            ));
        }
        if let Some(ambiguous) = e.ambiguous
            && m.ambiguous != ambiguous
        {
            problems.push(format!(
                "match {i} {:?}: ambiguous expected {ambiguous}, got {}",
                e.url, m.ambiguous
            ));
        }
        if let Some(start) = e.start
            && m.start != start
        {
            problems.push(format!(
                "match {i} {:?}: start expected {start}, got {}",
                e.url, m.start
            ));
        }
        if let Some(end) = e.end
            && m.end != end
        {
            problems.push(format!(
                "match {i} {:?}: end expected {end}, got {}",
                e.url, m.end
            ));
        }
    }
    problems
}

#[test]
fn case_file_is_well_formed() {
    let cases = load();
    assert!(!cases.is_empty());
    let mut names = HashSet::new();
    let mut bad = Vec::new();
    for c in &cases {
        if !names.insert(c.name.as_str()) {
            bad.push(format!("duplicate case name {:?}", c.name));
        }
        if rule_id(&c.rule).is_empty() || !c.rule.contains(':') {
            bad.push(format!(
                "{}: rule must be 'id: explanation', got {:?}",
                c.name, c.rule
            ));
        }
        for e in &c.expect {
            if let Some(s) = &e.style
                && !["bare", "quoted", "angle", "url-prefix"].contains(&s.as_str())
            {
                bad.push(format!("{}: unknown style {s:?}", c.name));
            }
            if let Some(k) = &e.kind
                && !["uri", "www"].contains(&k.as_str())
            {
                bad.push(format!("{}: unknown kind {k:?}", c.name));
            }
            if let (Some(s), Some(e2)) = (e.start, e.end)
                && (s > e2 || e2 > c.input.len())
            {
                bad.push(format!("{}: bad expected span {s}..{e2}", c.name));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "extract_cases.json problems:\n{}",
        bad.join("\n")
    );
}

#[test]
fn extract_cases() {
    let cases = load();
    let mut per_rule: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for case in &cases {
        let problems = check(case);
        let entry = per_rule.entry(rule_id(&case.rule)).or_default();
        entry.1 += 1;
        if problems.is_empty() {
            entry.0 += 1;
        } else {
            failures.push(format!(
                "--- {} [{}]\n    input: {:?}\n    rule: {}\n    {}",
                case.name,
                rule_id(&case.rule),
                case.input,
                case.rule,
                problems.join("\n    ")
            ));
        }
    }
    for (rule, (pass, total)) in &per_rule {
        eprintln!("extract_cases: {rule:<18} {pass:>3}/{total:<3} pass");
    }
    eprintln!(
        "extract_cases: {}/{} cases pass",
        cases.len() - failures.len(),
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} extract cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
