//! `--mail` reads a message's text/html parts with the HTML reader of
//! HTML files and web archives: every URL of the part, the WHATWG
//! attribute and character reference rules, the charset of the part's
//! MIME headers.

use std::process::Command;

/// `urlsift ARGS FILE` on `message` (written to a file): stdout lines and
/// the exit status.
fn urlsift(message: &str, name: &str, args: &[&str]) -> (Vec<String>, i32) {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join(name);
    std::fs::write(&f, message.replace('\n', "\r\n")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_urlsift"))
        .args(args)
        .arg(&f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    let out = String::from_utf8(o.stdout).unwrap();
    (
        out.lines().map(str::to_owned).collect(),
        o.status.code().unwrap_or(-1),
    )
}

/// The URLs `urlsift --mail` finds in a newsletter whose HTML part (in
/// quoted-printable, `charset`) is `html`, beside a text/plain part.
fn mail_urls(html: &str) -> Vec<String> {
    let qp = html.replace('=', "=3D");
    let message = format!(
        "From: Example News <news@example.org>\n\
To: reader@example.net\n\
Subject: Our October newsletter\n\
Date: Tue, 1 Oct 2024 09:00:00 +0000\n\
Message-ID: <20241001090000.1234@mail.example.org>\n\
MIME-Version: 1.0\n\
Content-Type: multipart/alternative; boundary=\"----=_Part_1\"\n\
\n\
------=_Part_1\n\
Content-Type: text/plain; charset=utf-8\n\
\n\
Read the newsletter online.\n\
\n\
------=_Part_1\n\
Content-Type: text/html; charset=utf-8\n\
Content-Transfer-Encoding: quoted-printable\n\
\n\
<html><head><title>News</title></head><body>\n{qp}\n</body></html>\n\
------=_Part_1--\n"
    );
    let (lines, code) = urlsift(&message, "news.eml", &["--mail"]);
    assert!(code == 0 || code == 1, "exit {code}");
    lines
}

#[test]
fn og_image_meta() {
    let got = mail_urls(r#"<meta property="og:image" content="https://img.example/a.png">"#);
    assert_eq!(got, ["https://img.example/a.png"]);
}

#[test]
fn generator_meta() {
    let got = mail_urls(
        r#"<meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/">"#,
    );
    assert_eq!(got, ["https://docutils.sourceforge.io/"]);
}

#[test]
fn svg_xmlns() {
    let got = mail_urls(r#"<svg xmlns="http://www.w3.org/2000/svg" width="1"></svg>"#);
    assert_eq!(got, ["http://www.w3.org/2000/svg"]);
}

#[test]
fn data_src() {
    let got = mail_urls(r#"<div data-src="https://data.example/x">x</div>"#);
    assert_eq!(got, ["https://data.example/x"]);
}

#[test]
fn script() {
    let got = mail_urls(r#"<script>var u = "https://script.example/api?x=1";</script>"#);
    assert_eq!(got, ["https://script.example/api?x=1"]);
}

#[test]
fn style_element_and_attribute_urls() {
    let got = mail_urls(
        "<base href=\"https://news.example/2024/\">\
<style>body{background:url(https://css.example/bg.png)} td{background:url(img/td.png)}</style>\
<td style=\"background-image:url('https://inline.example/i.png')\">x</td>",
    );
    assert_eq!(
        got,
        [
            "https://css.example/bg.png",
            "https://news.example/2024/img/td.png",
            "https://inline.example/i.png",
        ]
    );
}

#[test]
fn comment() {
    let got = mail_urls("<!-- https://comment.example/ -->");
    assert_eq!(got, ["https://comment.example/"]);
}

#[test]
fn relative_href_resolved_against_base_else_left_out() {
    let got = mail_urls(
        "<base href=\"https://news.example/2024/\"><a href=\"issue/12?p=1&amp;q=2\">12</a>",
    );
    assert_eq!(got, ["https://news.example/2024/issue/12?p=1&q=2"]);
    // (The base itself is not reported, as in an HTML file.) No base: a
    // relative reference is not a URL.
    assert!(mail_urls("<a href=\"/rel/path\">rel</a>").is_empty());
}

#[test]
fn base_and_links_only_apply_to_html_parts_as_to_html_files() {
    let html =
        "<a href=\"/docs/guide.html\">guide</a><script>var u = 'https://s.example/x';</script>";
    let message = format!(
        "From: a@example.org\nSubject: docs\nMessage-ID: <d@example.org>\n\
Content-Type: text/html; charset=utf-8\n\n{html}\n"
    );
    let base = ["--base", "https://ex.org/a/"];
    let (got, _) = urlsift(&message, "d.eml", &["--mail", base[0], base[1]]);
    assert_eq!(
        got,
        ["https://ex.org/docs/guide.html", "https://s.example/x"]
    );
    let args = ["--mail", base[0], base[1], "--links-only"];
    let (got, _) = urlsift(&message, "d.eml", &args);
    assert_eq!(got, ["https://ex.org/docs/guide.html"]);
    // The same page as a file.
    let (file, _) = urlsift(&format!("<!DOCTYPE html>\n{html}\n"), "d.html", &base);
    assert_eq!(
        file,
        ["https://ex.org/docs/guide.html", "https://s.example/x"]
    );
}

#[test]
fn a_wrapped_href_is_one_url() {
    // Wrapped as a mail client wraps a long line: the line breaks are not
    // part of the value (WHATWG), whatever the line after holds.
    let got = mail_urls(
        "<a href=\"https://lists.example.org/mailman/options/announce/\nsomeone%40example.com?unsub=1\">here</a>\n\
<a href=\"https://archive.example.org/2024/\nOctober issue.html\">archive</a>",
    );
    assert_eq!(
        got,
        [
            "https://lists.example.org/mailman/options/announce/someone%40example.com?unsub=1",
            "https://archive.example.org/2024/October issue.html",
        ]
    );
}

#[test]
fn a_quoted_space_in_a_mailto_is_kept() {
    let got = mail_urls(r#"<a href="mailto:x@y.example?subject=Site Feedback">Write to us</a>"#);
    assert_eq!(got, ["mailto:x@y.example?subject=Site Feedback"]);
}

#[test]
fn an_href_decodes_as_in_an_html_file() {
    // Character references as the WHATWG tokenizer reads them: with and
    // without `;`, numeric, in an attribute (where `&copy=` stays as it
    // is) and in text.
    let html = "<a href=\"https://r.example/a?x=1&amp;y=2&amp z=3&#x26;w=4&copy=5&#47;p\">r</a>\n\
<p>see https://t.example/?a=1&amp;b=2 now</p>";
    let got = mail_urls(html);
    let (file, _) = urlsift(
        &format!("<!DOCTYPE html><html><body>\n{html}\n</body></html>\n"),
        "page.html",
        &[],
    );
    assert_eq!(got, file);
    assert_eq!(got.len(), 2, "{got:?}");
}

#[test]
fn a_parts_charset_comes_from_its_mime_headers() {
    // The part says iso-8859-1; a <meta> inside it that says otherwise
    // does not count: the part is already text.
    let message = "From: a@example.org\n\
Subject: menu\n\
Message-ID: <m@example.org>\n\
Content-Type: text/html; charset=iso-8859-1\n\
Content-Transfer-Encoding: quoted-printable\n\
\n\
<meta charset=3D\"windows-1251\"><a href=3D\"https://caf=E9.example/men=FC\">x</a>\n";
    let (got, code) = urlsift(message, "menu.eml", &["--mail"]);
    assert_eq!(code, 0);
    assert_eq!(got, ["https://café.example/menü"]);
}

#[test]
fn an_html_urls_file_offset_is_where_it_is_written() {
    let message = "From: a@example.org\n\
Subject: offsets\n\
Message-ID: <o@example.org>\n\
Content-Type: text/html\n\
\n\
<p>\n<a href=\"https://o.example/x\">x</a> <a href=\"https://o.example/\ny\">y</a></p>\n";
    let (got, _) = urlsift(message, "o.eml", &["--mail", "-n", "-b"]);
    let crlf = message.replace('\n', "\r\n");
    let at = crlf.find("https://o.example/x").unwrap();
    assert_eq!(got[0], format!("7:{at}:https://o.example/x"));
    let at = crlf.find("https://o.example/\r\ny").unwrap();
    assert_eq!(got[1], format!("7:{at}:https://o.example/y"));
}
