//! Compare urlsift's extraction with what other URL-in-text extractors expect
//! (fixtures in `tests/data/peers/`, see its README.md).
//!
//! Only URL-with-scheme cases are compared, because urlsift does not link bare
//! domains or bare e-mail addresses:
//!
//! * linkify (`cases.jsonl`): rows whose finder has `url: true` and
//!   `url_can_be_iri: true` (urlsift always keeps IRIs; the `false` rows test an
//!   option urlsift does not have). The peer's links that have a scheme
//!   (`scheme://` or a known `scheme:`) are compared with all of urlsift's
//!   `Kind::Uri` matches. Rows are used when the peer has such a link, or when the
//!   input contains `://` or a known `scheme:` (so negatives count too).
//! * linkify-it (`links.txt`): positives whose expected first match has a scheme;
//!   compared with urlsift's first `Kind::Uri` match. `not_links.txt`: lines
//!   containing `://` or a known `scheme:`; urlsift must find no `Kind::Uri` match.
//! * cmark-gfm (`autolink-examples.jsonl`): CommonMark `<...>` autolinks (examples
//!   without extensions whose markdown contains `<`; any `scheme:` of 2-32
//!   characters counts, as in CommonMark), and GFM extended autolinks whose
//!   expected anchors include one with a scheme (or whose markdown has `://`). The
//!   anchor texts are compared with all of urlsift's `Kind::Uri` matches.
//!
//! Every disagreement must be listed in `tests/data/peer_deviations.json`, keyed
//! by suite + input, with a reason; `tests/data/peer_deviations.md` is the same
//! list rendered as a table. The test fails for an unlisted disagreement, for a
//! listed one whose result changed or that no longer occurs, for a reason that is
//! empty or "TODO", and when the .md is out of date.
//!
//! To regenerate the list: `URLSIFT_BLESS_DEVIATIONS=1 cargo test --test peer_fixtures`.
//! That rewrites both files, keeps the reason of every entry whose key is
//! unchanged, and gives new entries the reason "TODO" (so the test still fails
//! until someone writes the reason in the JSON and blesses again).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use urlsift_core::{Kind, Match};

/// Every URL in `hay`, in input order.
fn extract(hay: &[u8]) -> Vec<Match<'_>> {
    urlsift_core::find(hay).collect()
}

/// Schemes urlsift recognises without `//` in bare text (mirrors the documented
/// list of the engine; only used here to decide which peer links "have a scheme").
const KNOWN_SCHEMES: &[&str] = &[
    "mailto", "news", "urn", "tel", "fax", "sms", "sip", "sips", "xmpp", "im", "pres", "magnet",
    "geo", "cid", "mid", "data", "doi",
];

const BLESS_VAR: &str = "URLSIFT_BLESS_DEVIATIONS";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Compare the peer's first link with urlsift's first `Kind::Uri` match.
    First,
    /// Compare all links.
    All,
}

#[derive(Debug)]
struct PeerCase {
    suite: &'static str,
    id: String,
    input: String,
    peer: Vec<String>,
    mode: Mode,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct Deviation {
    suite: String,
    id: String,
    input: String,
    peer: Vec<String>,
    ours: Vec<String>,
    reason: String,
}

fn data_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(data_path(rel))
        .unwrap_or_else(|e| panic!("reading tests/data/{rel}: {e}"))
}

/// `scheme://...` with an RFC 3986 scheme, or one of the known schemes without `//`.
fn has_scheme(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let scheme = &s[..colon];
    if !is_scheme(scheme) {
        return false;
    }
    s[colon + 1..].starts_with("//") || KNOWN_SCHEMES.iter().any(|k| k.eq_ignore_ascii_case(scheme))
}

/// CommonMark's absolute-URI test for `<...>` autolinks: a 2-32 character scheme and ':'.
fn has_any_scheme(s: &str) -> bool {
    s.find(':')
        .is_some_and(|c| (2..=32).contains(&c) && is_scheme(&s[..c]))
}

fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Whether a text mentions a URL with a scheme at all (used to keep negatives).
fn mentions_scheme(text: &str) -> bool {
    if text.contains("://") {
        return true;
    }
    let lower = text.to_ascii_lowercase();
    KNOWN_SCHEMES.iter().any(|k| {
        lower.match_indices(&format!("{k}:")).any(|(i, _)| {
            // at a word start: not preceded by a scheme character
            !lower[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        })
    })
}

// ------------------------------------------------------------------ linkify

#[derive(Deserialize)]
struct LinkifyRow {
    file: String,
    test: String,
    finder: String,
    input: String,
    expected: String,
}

/// Splits linkify's `expected` (the input with each link wrapped in `|...|`) into
/// the links. The input itself may contain `|`, so this aligns the two strings,
/// trying "marker" before "literal" and backtracking.
fn linkify_links(input: &str, expected: &str) -> Option<Vec<String>> {
    fn go(
        inp: &[char],
        exp: &[char],
        i: usize,
        j: usize,
        open: Option<usize>,
        out: &mut Vec<(usize, usize)>,
    ) -> bool {
        if j == exp.len() {
            return i == inp.len() && open.is_none();
        }
        if exp[j] == '|' {
            match open {
                None => {
                    if go(inp, exp, i, j + 1, Some(i), out) {
                        return true;
                    }
                }
                Some(s) if s < i => {
                    out.push((s, i));
                    if go(inp, exp, i, j + 1, None, out) {
                        return true;
                    }
                    out.pop();
                }
                Some(_) => {}
            }
        }
        i < inp.len() && inp[i] == exp[j] && go(inp, exp, i + 1, j + 1, open, out)
    }
    let inp: Vec<char> = input.chars().collect();
    let exp: Vec<char> = expected.chars().collect();
    let mut spans = Vec::new();
    go(&inp, &exp, 0, 0, None, &mut spans).then(|| {
        spans
            .iter()
            .map(|&(s, e)| inp[s..e].iter().collect())
            .collect()
    })
}

fn linkify_cases() -> Vec<PeerCase> {
    let mut out = Vec::new();
    for (n, line) in read("peers/linkify/cases.jsonl").lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: LinkifyRow = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("linkify cases.jsonl line {}: {e}", n + 1));
        if !row.finder.contains("url: true") || row.finder.contains("url_can_be_iri: false") {
            continue;
        }
        let links = linkify_links(&row.input, &row.expected).unwrap_or_else(|| {
            panic!(
                "linkify line {}: cannot align {:?} with {:?}",
                n + 1,
                row.expected,
                row.input
            )
        });
        let peer: Vec<String> = links.into_iter().filter(|l| has_scheme(l)).collect();
        if peer.is_empty() && !mentions_scheme(&row.input) {
            continue;
        }
        out.push(PeerCase {
            suite: "linkify",
            id: format!("{}::{} (line {})", row.file, row.test, n + 1),
            input: row.input,
            peer,
            mode: Mode::All,
        });
    }
    out
}

// ------------------------------------------------------------------ linkify-it

fn linkify_it_cases() -> Vec<PeerCase> {
    let mut out = Vec::new();
    let text = read("peers/linkify-it/links.txt");
    let lines: Vec<&str> = text.lines().collect();
    let mut k = 0;
    while k < lines.len() {
        let line = lines[k];
        if line.starts_with('%') || line.trim().is_empty() {
            k += 1;
            continue;
        }
        let next = lines.get(k + 1).copied().unwrap_or("");
        let (expected, step) = if !next.trim().is_empty() && !next.starts_with('%') {
            (next, 2)
        } else {
            (line, 1)
        };
        if has_scheme(expected) {
            out.push(PeerCase {
                suite: "linkify-it",
                id: format!("links.txt:{}", k + 1),
                input: line.to_string(),
                peer: vec![expected.to_string()],
                mode: Mode::First,
            });
        }
        k += step;
    }
    for (n, line) in read("peers/linkify-it/not_links.txt").lines().enumerate() {
        if line.starts_with('%') || line.trim().is_empty() || !mentions_scheme(line) {
            continue;
        }
        out.push(PeerCase {
            suite: "linkify-it",
            id: format!("not_links.txt:{}", n + 1),
            input: line.to_string(),
            peer: Vec::new(),
            mode: Mode::All,
        });
    }
    out
}

// ------------------------------------------------------------------ cmark-gfm

#[derive(Deserialize)]
struct GfmRow {
    source: String,
    section: String,
    example: u32,
    extensions: String,
    markdown: String,
    html: String,
}

fn html_unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The texts of the `<a href="...">TEXT</a>` anchors in the expected HTML.
fn anchor_texts(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(a) = rest.find("<a href=\"") {
        rest = &rest[a..];
        let Some(gt) = rest.find('>') else { break };
        let Some(close) = rest[gt..].find("</a>") else {
            break;
        };
        out.push(html_unescape(&rest[gt + 1..gt + close]));
        rest = &rest[gt + close..];
    }
    out
}

fn gfm_cases() -> Vec<PeerCase> {
    let mut out = Vec::new();
    for (n, line) in read("peers/cmark-gfm/autolink-examples.jsonl")
        .lines()
        .enumerate()
    {
        if line.trim().is_empty() {
            continue;
        }
        let row: GfmRow =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("cmark-gfm line {}: {e}", n + 1));
        if row.html.contains("<IGNORE>") {
            continue;
        }
        let anchors = anchor_texts(&row.html);
        let peer: Vec<String> = if row.extensions.is_empty() {
            if !row.markdown.contains('<') {
                continue; // plain CommonMark does not link bare text
            }
            anchors.into_iter().filter(|a| has_any_scheme(a)).collect()
        } else {
            let peer: Vec<String> = anchors.into_iter().filter(|a| has_scheme(a)).collect();
            if peer.is_empty() && !row.markdown.contains("://") {
                continue;
            }
            peer
        };
        out.push(PeerCase {
            suite: "cmark-gfm",
            id: format!("{} example {} ({})", row.source, row.example, row.section),
            input: row.markdown,
            peer,
            mode: Mode::All,
        });
    }
    out
}

// ------------------------------------------------------------------ comparison

fn ours(case: &PeerCase) -> Vec<String> {
    let urls = extract(case.input.as_bytes())
        .into_iter()
        .filter(|m| m.kind == Kind::Uri)
        .map(|m| String::from_utf8_lossy(&m.url).into_owned());
    match case.mode {
        Mode::All => urls.collect(),
        Mode::First => urls.take(1).collect(),
    }
}

fn peer_view(case: &PeerCase) -> Vec<String> {
    match case.mode {
        Mode::All => case.peer.clone(),
        Mode::First => case.peer.iter().take(1).cloned().collect(),
    }
}

fn all_cases() -> Vec<PeerCase> {
    let mut cases = Vec::new();
    cases.extend(linkify_cases());
    cases.extend(linkify_it_cases());
    cases.extend(gfm_cases());
    // One case per key (suite + input): keep the first occurrence.
    let mut seen = HashSet::new();
    cases.retain(|c| seen.insert((c.suite, c.input.clone())));
    cases
}

fn md_code(s: &str) -> String {
    let mut esc = String::new();
    for c in s.chars() {
        match c {
            '\n' => esc.push_str("\\n"),
            '\r' => esc.push_str("\\r"),
            '\t' => esc.push_str("\\t"),
            '|' => esc.push_str("\\|"),
            c if c.is_control()
                || (c.is_whitespace() && c != ' ')
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}') =>
            {
                esc.extend(c.escape_unicode())
            }
            c => esc.push(c),
        }
    }
    if esc.contains('`') {
        format!("`` {esc} ``")
    } else {
        format!("`{esc}`")
    }
}

fn md_list(v: &[String]) -> String {
    if v.is_empty() {
        "(none)".to_string()
    } else {
        v.iter()
            .map(|s| md_code(s))
            .collect::<Vec<_>>()
            .join("<br>")
    }
}

fn render_md(devs: &[Deviation]) -> String {
    let mut md = String::new();
    md.push_str("# Peer-fixture deviations\n\n");
    md.push_str(
        "Where urlsift's extraction disagrees with another extractor's test expectations\n\
         (`tests/peer_fixtures.rs`, fixtures in `tests/data/peers/`). Each row says why.\n\n\
         **Generated** from `peer_deviations.json`; do not edit this table by hand. To change a\n\
         reason, edit it in the JSON and run `URLSIFT_BLESS_DEVIATIONS=1 cargo test --test\n\
         peer_fixtures`, which rewrites both files from the current results, keeping each\n\
         reason whose key (suite + input) is unchanged; new rows get the reason `TODO`, and\n\
         the test fails until every reason is filled in.\n\n",
    );
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for d in devs {
        *counts.entry(d.suite.as_str()).or_default() += 1;
    }
    for (suite, n) in &counts {
        let _ = writeln!(md, "- {suite}: {n} deviation(s)");
    }
    md.push_str("\n| suite | case | input | peer expects | urlsift gives | reason |\n|---|---|---|---|---|---|\n");
    for d in devs {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            d.suite,
            d.id.replace('|', "\\|"),
            md_code(&d.input),
            md_list(&d.peer),
            md_list(&d.ours),
            d.reason.replace('|', "\\|").replace('\n', " ")
        );
    }
    md
}

fn is_todo(reason: &str) -> bool {
    reason.trim().is_empty() || reason.trim().eq_ignore_ascii_case("todo")
}

#[test]
fn peer_fixtures_agree_or_are_listed() {
    let cases = all_cases();
    let bless = std::env::var(BLESS_VAR).is_ok_and(|v| v == "1");

    let listed: Vec<Deviation> = serde_json::from_str(&read("peer_deviations.json"))
        .expect("tests/data/peer_deviations.json is not valid");
    let mut listed_by_key: HashMap<(String, String), &Deviation> = HashMap::new();
    let mut problems = Vec::new();
    for d in &listed {
        if listed_by_key
            .insert((d.suite.clone(), d.input.clone()), d)
            .is_some()
        {
            problems.push(format!("duplicate deviation key {} {:?}", d.suite, d.input));
        }
    }

    // suite -> (cases, agree)
    let mut stats: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut current = Vec::new();
    let mut current_keys = HashSet::new();
    for case in &cases {
        let peer = peer_view(case);
        let got = ours(case);
        let st = stats.entry(case.suite).or_default();
        st.0 += 1;
        if peer == got {
            st.1 += 1;
            continue;
        }
        let key = (case.suite.to_string(), case.input.clone());
        let reason = listed_by_key
            .get(&key)
            .map_or_else(|| "TODO".to_string(), |d| d.reason.clone());
        current_keys.insert(key);
        current.push(Deviation {
            suite: case.suite.to_string(),
            id: case.id.clone(),
            input: case.input.clone(),
            peer,
            ours: got,
            reason,
        });
    }

    if bless {
        let json = serde_json::to_string_pretty(&current).unwrap() + "\n";
        std::fs::write(data_path("peer_deviations.json"), json).unwrap();
        std::fs::write(data_path("peer_deviations.md"), render_md(&current)).unwrap();
        eprintln!(
            "peer_fixtures: blessed {} deviations into tests/data/peer_deviations.{{json,md}}",
            current.len()
        );
    } else {
        for d in &current {
            match listed_by_key.get(&(d.suite.clone(), d.input.clone())) {
                None => problems.push(format!(
                    "unlisted deviation: {} {} input {:?}: peer expects {:?}, urlsift gives {:?}",
                    d.suite, d.id, d.input, d.peer, d.ours
                )),
                Some(l) if l.peer != d.peer || l.ours != d.ours => problems.push(format!(
                    "deviation changed: {} {} input {:?}: listed peer {:?} / ours {:?}, now peer {:?} / ours {:?}",
                    d.suite, d.id, d.input, l.peer, l.ours, d.peer, d.ours
                )),
                Some(_) => {}
            }
        }
        for l in &listed {
            if !current_keys.contains(&(l.suite.clone(), l.input.clone())) {
                problems.push(format!(
                    "listed deviation no longer occurs (remove it, or bless): {} {} input {:?}",
                    l.suite, l.id, l.input
                ));
            }
        }
        if read("peer_deviations.md") != render_md(&listed) {
            problems.push("tests/data/peer_deviations.md is out of date with peer_deviations.json (bless to regenerate)".to_string());
        }
    }
    for d in if bless { &current } else { &listed } {
        if is_todo(&d.reason) {
            problems.push(format!(
                "deviation without a reason: {} {} input {:?}",
                d.suite, d.id, d.input
            ));
        }
    }

    let mut listed_per_suite: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &current {
        *listed_per_suite.entry(d.suite.as_str()).or_default() += 1;
    }
    for (suite, (n, agree)) in &stats {
        let dev = listed_per_suite.get(suite).copied().unwrap_or(0);
        eprintln!("{suite}: {agree}/{n} agree, {dev} deviations");
    }
    assert!(
        problems.is_empty(),
        "{} peer-fixture problem(s) (set {BLESS_VAR}=1 to regenerate the list, then write the reasons):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn linkify_marker_alignment() {
    assert_eq!(
        linkify_links("http://example.org/foo|bar", "|http://example.org/foo||bar").unwrap(),
        vec!["http://example.org/foo"]
    );
    assert_eq!(
        linkify_links("(http://a.com/)", "(|http://a.com/|)").unwrap(),
        vec!["http://a.com/"]
    );
    assert_eq!(linkify_links("a b", "a b").unwrap(), Vec::<String>::new());
    assert!(
        has_scheme("http://x")
            && has_scheme("MAILTO:a@b")
            && !has_scheme("example.com:80/x")
            && !has_scheme("a@b")
    );
}
