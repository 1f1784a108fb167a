//! HTML pages: their links, resolved against the page.

use std::io::Read;
use std::sync::atomic::Ordering;

use super::Config;
use super::format::RecordSender;
use urlsift_core::stream::Filled;
use urlsift_core::{Finder, Found, Match};

/// Read an HTML stream: at most [`Config::max_html`] bytes of it (and a
/// byte more, to know there is more) are read and scanned as HTML, and the
/// text rules read the rest, if any ([`scan_html`]).
pub(super) fn read_html(
    cfg: &Config<'_>,
    name: &str,
    mut r: impl Read + Send,
    emit: &mut RecordSender<'_>,
) -> Option<String> {
    let cap = cfg.max_html;
    let mut doc = Vec::new();
    let mut error = None;
    // Grown as the page comes, not allocated at the cap.
    while doc.len() <= cap {
        let want = doc
            .len()
            .saturating_mul(2)
            .max(64 << 10)
            .min(cap.saturating_add(1));
        match crate::input::fill(&mut r, &mut doc, want, None) {
            Ok(Filled::End) => break,
            Ok(_) => {}
            Err(e) => {
                error = Some(format!("{name}: at byte {}: {e}", doc.len()));
                break;
            }
        }
    }
    let rest = (doc.len() > cap && error.is_none()).then_some(r);
    let scanned = scan_html(cfg, name, &doc, rest, emit);
    if emit.stopped() {
        return None;
    }
    error.or(scanned)
}

/// Where HTML whose first bytes (as many as the cap) are `head` ends, so
/// that no URL and, where it can be, no tag is cut in two: after the last
/// newline, else at the last other whitespace, `<` or `>` (bytes a URL
/// does not hold); and before a tag that the cut would end inside.
pub(super) fn html_cut(head: &[u8]) -> usize {
    let cut = match memchr::memrchr(b'\n', head) {
        Some(p) => p + 1,
        None => head
            .iter()
            .rposition(|&b| matches!(b, b' ' | b'\t' | b'\r' | 0x0c | b'<' | b'>'))
            .unwrap_or(head.len()),
    };
    let before = head.get(..cut).unwrap_or_default();
    let lt = memchr::memrchr(b'<', before);
    let gt = memchr::memrchr(b'>', before);
    match lt {
        // A tag (or comment) opened and not closed before the cut.
        Some(lt)
            if lt > 0
                && gt.is_none_or(|gt| gt < lt)
                && head
                    .get(lt + 1)
                    .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'/' || b == b'!') =>
        {
            lt
        }
        _ => cut,
    }
}

/// The links and URLs of the HTML page `page` (the document up to the
/// cap), each with its line and column when the output uses them; a
/// warning of the page (an unknown charset) reported.
fn page_links(cfg: &Config<'_>, name: &str, page: &[u8], emit: &mut RecordSender<'_>) {
    let uses_line = emit.formatter.uses_line();
    let mut lines = crate::web::Lines::default();
    let mut columns = urlsift_core::ColumnCounter::default();
    let opts = urlsift_warc::LinkOptions {
        base: cfg.base.clone(),
        ..cfg.link_options()
    };
    let warning = crate::web::html_document_links_with(page, &opts, |m, web| {
        let line = if uses_line {
            lines.at(page, m.start)
        } else {
            0
        };
        let column = if cfg.column {
            columns.column_at(page, m.start)
        } else {
            0
        };
        emit.record_at(m, (line, column), None, Some(web));
    });
    if let Some(w) = warning {
        urlsift_core::report!("{name}: {w}");
    }
}

/// Scan the HTML document `doc` ([`crate::web::html_document_links`],
/// against [`Config::base`]) with line numbers counted from its offsets.
/// Past [`Config::max_html`] bytes (`doc` longer, or `rest` to come), the
/// document is HTML to its last newline before the cap, and the text rules
/// read what follows, `doc`'s and then `rest`'s bytes, with offsets and
/// lines in the whole input.
pub(super) fn scan_html(
    cfg: &Config<'_>,
    name: &str,
    doc: &[u8],
    rest: Option<impl Read + Send>,
    emit: &mut RecordSender<'_>,
) -> Option<String> {
    let cap = cfg.max_html;
    let cut = if doc.len() <= cap && rest.is_none() {
        doc.len()
    } else {
        html_cut(doc.get(..cap).unwrap_or(doc))
    };
    let (page, tail) = doc.split_at(cut);
    let uses_line = emit.formatter.uses_line();
    page_links(cfg, name, page, emit);
    if tail.is_empty() && rest.is_none() {
        return None;
    }
    urlsift_core::report!(
        "{name}: byte {cut}: HTML longer than {cap} bytes: the rest is read as text"
    );
    let before = if uses_line {
        urlsift_core::newlines(page)
    } else {
        0
    };
    let text: Box<dyn Read + Send + '_> = match rest {
        Some(r) => Box::new(tail.chain(r)),
        None => Box::new(tail),
    };
    // The text's first line starts `first_column` bytes into its line of
    // the input (0 when cut at a newline); its other lines are the input's.
    let first_column = cut - memchr::memrchr(b'\n', page).map_or(0, |p| p + 1);
    let finder = Finder::from(cfg.extractor).chunk_size(cfg.chunk_size);
    let res = finder
        .columns(true)
        .scan_reader(text, |Found { m, line, column }: Found<'_>| {
            let abs = Match {
                start: m.start + cut,
                end: m.end + cut,
                ..m
            };
            let column = if line == 1 {
                column + first_column as u64
            } else {
                column
            };
            let line = if uses_line { line + before } else { line };
            emit.record_at(&abs, (line, column), None, None);
            // The text is read no further once the input is full (`-m`).
            !emit.full.load(Ordering::Relaxed)
        });
    match res {
        Err(e) if !emit.stopped() => Some(format!("{name}: {e}")),
        _ => None,
    }
}
