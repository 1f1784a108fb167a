//! WAT records: Common Crawl's metadata of each capture, as JSON
//! (`Envelope.Payload-Metadata.HTTP-Response-Metadata`), whose HTML links
//! are given as link records rather than read from the page.

use std::borrow::Cow;

use serde_json::Value;

use crate::reader::Record;
use urlsift_html::{Link, Source, markup_link};

/// True for a WAT record: a `metadata` record whose block is a JSON object
/// with an `Envelope`.
pub(crate) fn is_wat(rec: &Record) -> bool {
    rec.warc_type == "metadata"
        && rec
            .content_type
            .as_deref()
            .is_some_and(|c| c.to_ascii_lowercase().contains("json"))
        && rec.block.trim_ascii_start().starts_with(b"{")
        && memchr::memmem::find(rec.block.get(..4096).unwrap_or(&rec.block), b"\"Envelope\"")
            .is_some()
}

/// The attribute names a WAT `path` may give, as `'static` names (the
/// type of [`Source::Attribute`]); another name is reported as `other`.
const ATTRS: &[&str] = &[
    "href",
    "src",
    "action",
    "formaction",
    "data",
    "content",
    "cite",
    "poster",
    "background",
    "longdesc",
    "srcset",
    "manifest",
    "codebase",
    "archive",
    "usemap",
    "profile",
    "classid",
    "lowsrc",
    "dynsrc",
    "ping",
    "icon",
    "itemtype",
    "itemid",
    "url",
];

/// Where a WAT `path` says a link was: `A@/href` is the attribute `href` of
/// an `a` element; a path without `@/` (`STYLE/#text`) is text.
fn source_of(path: &str) -> Source {
    let Some((tag, attr)) = path.split_once("@/") else {
        return Source::Text;
    };
    let attr = attr.to_ascii_lowercase();
    let attr = ATTRS
        .iter()
        .find(|a| **a == attr)
        .copied()
        .unwrap_or("other");
    Source::Attribute {
        tag: Cow::Owned(tag.to_ascii_lowercase()),
        attr,
    }
}

/// The links of a WAT record, handed to `sink` until it returns false: the
/// `Location` and `Content-Location` response headers, then the HTML
/// metadata's `Head.Link`, `Head.Scripts` and `Links`, each `url` with its
/// character references decoded and resolved against `Head.Base` (itself
/// resolved against the page), else the page's URI (the envelope's
/// `WARC-Target-URI`, else the record's). A block that is not JSON is a
/// problem.
pub(crate) fn wat_links(rec: &Record, mut sink: impl FnMut(Link) -> bool) -> Option<String> {
    let v: Value = match serde_json::from_slice(&rec.block) {
        Ok(v) => v,
        Err(e) => return Some(format!("WAT metadata that is not JSON: {e}")),
    };
    let env = &v["Envelope"];
    let doc = env["WARC-Header-Metadata"]["WARC-Target-URI"]
        .as_str()
        .or(rec.target_uri.as_deref());
    let http = &env["Payload-Metadata"]["HTTP-Response-Metadata"];
    if let Some(headers) = http["Headers"].as_object() {
        for name in ["Location", "Content-Location"] {
            let value = headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .and_then(|(_, v)| v.as_str());
            if let Some(value) = value
                && !sink(markup_link(doc, value, Source::Header { name }))
            {
                return None;
            }
        }
    }
    let html = &http["HTML-Metadata"];
    let base_url = html["Head"]["Base"]
        .as_str()
        .map(|b| markup_link(doc, b, Source::Text))
        .filter(|l| l.resolved)
        .map(|l| l.url);
    let base = base_url.as_deref().or(doc);
    for list in [
        &html["Head"]["Link"],
        &html["Head"]["Scripts"],
        &html["Links"],
    ] {
        for entry in list.as_array().map(Vec::as_slice).unwrap_or_default() {
            let Some(url) = entry["url"].as_str() else {
                continue;
            };
            let source = source_of(entry["path"].as_str().unwrap_or_default());
            let mut l = markup_link(base, url, source);
            // The `rel` the WAT gives a link of a tag that has one.
            l.rel = entry["rel"]
                .as_str()
                .filter(|_| matches!(&l.source, Source::Attribute { tag, .. } if matches!(&**tag, "a" | "area" | "link" | "form")))
                .map(|r| r.split_ascii_whitespace().map(str::to_ascii_lowercase).collect::<Vec<_>>().join(" "));
            if !sink(l) {
                return None;
            }
        }
    }
    None
}
