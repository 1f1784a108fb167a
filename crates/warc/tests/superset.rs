//! On real pages: every absolute URL the text rules find in an HTML page
//! (as `--no-html` reads it) is among the URLs of the default HTML reading,
//! except where the text reading is wrong: a URL cut short at a space or a
//! line break inside a quoted attribute value (the HTML reading has the
//! whole value), or one that keeps a character reference (`&amp;`) that
//! the HTML reading decodes.
//!
//! The pages: the HTML records of the committed fixtures (real pages), and
//! every `.html` file under the directories named in `URLSIFT_HTML_PAGES`
//! (`:`-separated), when set.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use urlsift_html::{decode_char_refs, html_links, text_links};
use urlsift_warc::{BodyKind, LinkOptions, Reader, body_kind, payload};

fn fixture_pages() -> Vec<(String, Vec<u8>, Option<String>)> {
    let mut pages = Vec::new();
    for name in ["sample.warc", "sample.warc.gz"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        let f = std::fs::File::open(path).expect("fixture");
        for rec in Reader::new(f).flatten() {
            if rec.warc_type != "response" {
                continue;
            }
            let p = payload(&rec, usize::MAX);
            if body_kind(p.content_type.as_deref(), &p.body) == BodyKind::Html {
                let at = format!("{name} @{}", rec.offset);
                pages.push((at, p.body.into_owned(), rec.target_uri.clone()));
            }
        }
    }
    pages
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "html" || x == "htm") {
            out.push(p);
        }
    }
}

fn env_pages() -> Vec<(String, Vec<u8>, Option<String>)> {
    let Some(dirs) = std::env::var_os("URLSIFT_HTML_PAGES") else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for d in std::env::split_paths(&dirs) {
        walk(&d, &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let b = std::fs::read(&p).ok()?;
            Some((p.display().to_string(), b, None))
        })
        .collect()
}

/// Why the text reading's `u` is not among `html`'s URLs, if it is wrong
/// (see the module's comment): `None` when it should have been found.
fn text_reading_is_wrong(u: &str, html: &HashSet<String>, page: &[u8]) -> Option<&'static str> {
    // Begun inside a word a character reference starts (`&#104;ttp://`).
    let after_ref = memchr::memmem::find_iter(page, u.as_bytes()).any(|at| {
        let before = &page[at.saturating_sub(12)..at];
        before.ends_with(b";")
            && before.iter().rposition(|&b| b == b'&').is_some_and(|a| {
                before[a + 1..before.len() - 1]
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'#')
            })
    });
    if after_ref {
        return Some("begun after a character reference");
    }
    if let Some(amp) = u.find('&') {
        // Decoded, it is one of the HTML reading's URLs, or one of them
        // goes on from where the text reading ran into a `&quot;` or
        // the like; either way they agree up to the reference.
        let mut dec = Vec::new();
        decode_char_refs(u.as_bytes(), true, &mut dec, |_, _| {});
        let dec = String::from_utf8_lossy(&dec);
        // Up to the reference, less the punctuation the text rules drop
        // at a URL's end.
        let head = u[..amp].trim_end_matches(|c| ".,;:!?'\")".contains(c));
        if head.ends_with("://") {
            return Some("character reference after the scheme");
        }
        let agrees = |h: &String| {
            h.starts_with(head)
                && (*h == dec || dec.starts_with(h.as_str()) || h.starts_with(dec.as_ref()))
        };
        if dec != u && html.iter().any(agrees) {
            return Some("character reference");
        }
    }
    // Cut short: the HTML reading's URL goes on with a space or a line
    // break where the text reading stopped, or the written URL does.
    if html.iter().any(|h| {
        h.strip_prefix(u)
            .and_then(|rest| rest.bytes().next())
            .is_some()
    }) {
        return Some("cut short");
    }
    let written_on = memchr::memmem::find_iter(page, u.as_bytes())
        .any(|at| matches!(page.get(at + u.len()), Some(b' ' | b'\n' | b'\r' | b'\t')));
    written_on.then_some("cut at whitespace")
}

#[test]
fn default_html_reading_holds_the_text_readings_absolute_urls() {
    let mut pages = fixture_pages();
    assert!(pages.len() >= 16, "{}", pages.len());
    pages.extend(env_pages());
    let (mut checked, mut text_urls, mut excused) = (0, 0, 0);
    let mut missing = Vec::new();
    for (name, page, doc) in &pages {
        let mut html = HashSet::new();
        html_links(page, doc.as_deref(), &LinkOptions::default(), |l| {
            html.insert(l.url);
        });
        let mut text = Vec::new();
        text_links(page, |l| {
            if l.resolved {
                text.push(l.url);
            }
        });
        checked += 1;
        for u in text {
            text_urls += 1;
            if html.contains(&u) {
                continue;
            }
            match text_reading_is_wrong(&u, &html, page) {
                Some(why) => {
                    excused += 1;
                    if std::env::var_os("URLSIFT_SHOW_EXCUSED").is_some() {
                        println!("excused ({why}): {name}: {u}");
                    }
                }
                None => missing.push(format!("{name}: {u}")),
            }
        }
    }
    println!(
        "{checked} pages, {text_urls} absolute URLs by the text rules, {excused} where the text reading is wrong, {} missing",
        missing.len()
    );
    assert!(missing.is_empty(), "{missing:#?}");
}
