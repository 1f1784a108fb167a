//! Tests: an HTML page read a window at a time gives the links one pass
//! over all of it gives, in the same order, and holds no more than a
//! window (and one tag) of them.

use proptest::prelude::*;

use crate::html::{self, Gather, Window};
use crate::links::{Link, LinkOptions, html_links_in};

const WHOLE: Window = Window {
    attrs: usize::MAX,
    text: usize::MAX,
};

const WINDOWS: [Window; 4] = [
    Window { attrs: 1, text: 1 },
    Window { attrs: 2, text: 40 },
    Window {
        attrs: 7,
        text: 300,
    },
    Window::DEFAULT,
];

fn links(page: &[u8], doc: Option<&str>, opts: &LinkOptions, window: Window) -> Vec<Link> {
    let mut got = Vec::new();
    html_links_in(page, doc, opts, window, &mut |l| {
        got.push(l);
        true
    });
    got
}

fn same_in_every_window(page: &[u8]) -> Result<(), TestCaseError> {
    for (text, scan_scripts, markup) in [
        (true, false, false),
        (true, true, true),
        (false, false, false),
        (false, true, true),
    ] {
        let opts = LinkOptions {
            text,
            scan_scripts,
            markup,
            ..LinkOptions::default()
        };
        for doc in [Some("http://ex.org/a/b.html"), None] {
            let want = links(page, doc, &opts, WHOLE);
            for w in WINDOWS {
                let got = links(page, doc, &opts, w);
                prop_assert_eq!(&got, &want, "{:?} {:?}", w, String::from_utf8_lossy(page));
            }
        }
    }
    Ok(())
}

#[test]
fn fixture_pages_read_alike_in_every_window() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pages");
    let mut pages = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let page = std::fs::read(entry.unwrap().path()).unwrap();
        same_in_every_window(&page).unwrap();
        pages += 1;
    }
    assert!(pages >= 8, "{pages}");
}

#[test]
fn tricky_pages_read_alike_in_every_window() {
    for page in [
        &b"<p>see http://a.example/x</p><a href=b>b</a> and (http://c.example/y)"[..],
        b"<a href=x>http://a.example/</a><a href=y>www.b.example.</a>",
        b"&lt;http://wrapped.example/a\n  b&gt; <a href=z>&lt;http://c.example/\n d&gt;</a>",
        b"<title>URL: http://t.example/</title><b>http:</b>//no.example/ <i>www.</i>x.example",
        b"<img srcset='a.png 1x, b.png 2x, c.png 3x'><img srcset='d.png'> http://e.example/",
        b"<a href=1>1</a><a href=2>2</a><a href=3>3</a><a href=4>4</a><a href=5>5</a>",
        b"text http://x.example/\xe4\xb8\xad<b>\xe4\xb8\xad http://y.example/\xe3\x80\x82</b>",
        b"<script>var u = 'http://s.example/';</script> <a href=s>s</a> <!-- <a href=c> -->",
        b"<plaintext><a href=p>http://p.example/ <b>",
        b"<a href=rel>r</a><base href='http://base.example/d/'><a href=rel2>r</a>",
    ] {
        same_in_every_window(page).unwrap();
    }
}

#[test]
fn a_base_after_the_links_still_resolves_them() {
    let page = b"<a href=a>a</a> <!-- <base href=http://comment.example/> -->\
        <script>'<base href=http://script.example/>'</script>\
        <BASE\nHREF='http://b.example/d/'><base href=http://second.example/><a href=c>c</a>";
    for w in WINDOWS {
        let got = links(
            page,
            Some("http://doc.example/"),
            &LinkOptions::links_only(),
            w,
        );
        let urls: Vec<&str> = got.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(
            urls,
            ["http://b.example/d/a", "http://b.example/d/c"],
            "{w:?}"
        );
    }
    assert_eq!(html::base_href(b"<basefont href=x><a href=y>"), None);
    assert_eq!(html::base_href(b"<base/href=x>"), Some(b"x".to_vec()));
}

#[test]
fn a_pass_holds_a_window_at_a_time() {
    let page: Vec<u8> = (0..5000)
        .flat_map(|i| format!("<a href=\"/p/{i}\">see http://t{i}.example/</a>\n").into_bytes())
        .collect();
    let w = Window {
        attrs: 16,
        text: 1024,
    };
    let gather = Gather {
        text: true,
        scripts: false,
        markup: false,
        base_only: false,
    };
    let (mut flushes, mut most_attrs, mut most_text) = (0, 0, 0);
    let rest = html::scan(&page, gather, w, &mut |s| {
        flushes += 1;
        most_attrs = most_attrs.max(s.attrs.len());
        most_text = most_text.max(s.text.len());
        s.attrs.clear();
        s.keep_text(128);
        true
    });
    assert!(flushes > 300, "{flushes}");
    assert!(
        most_attrs <= 16 && most_text <= 1024 + 64,
        "{most_attrs} {most_text}"
    );
    assert!(rest.attrs.len() <= 16 && rest.text.len() <= 1024 + 64);
    // A sink that says stop ends the pass.
    let mut n = 0;
    html_links_in(&page, None, &LinkOptions::default(), w, &mut |_| {
        n += 1;
        n < 10
    });
    assert_eq!(n, 10);
}

#[test]
fn one_tag_of_many_attributes_is_held_a_window_at_a_time() {
    let mut page = b"<div".to_vec();
    for i in 0..5000 {
        page.extend_from_slice(
            format!(" data-{i}='see http://u{i}.example/' x{i} src{i}=y").as_bytes(),
        );
    }
    page.extend_from_slice(b" src=/s>text http://t.example/");
    let w = Window {
        attrs: 16,
        text: 1024,
    };
    let gather = Gather {
        text: true,
        scripts: true,
        markup: true,
        base_only: false,
    };
    let (mut flushes, mut most_text) = (0, 0);
    html::scan(&page, gather, w, &mut |s| {
        flushes += 1;
        most_text = most_text.max(s.text.len());
        s.attrs.clear();
        s.keep_text(128);
        true
    });
    assert!(flushes > 100, "{flushes}");
    assert!(most_text <= 1024 + 128, "{most_text}");
    // And the links are those of one pass over the whole tag.
    let got = links(&page, Some("http://ex.org/"), &LinkOptions::default(), w);
    assert_eq!(
        got,
        links(
            &page,
            Some("http://ex.org/"),
            &LinkOptions::default(),
            WHOLE
        )
    );
    assert_eq!(got.len(), 5002);
    assert_eq!(got[4999].url, "http://u4999.example/");
    assert_eq!(got[5000].url, "http://ex.org/s");
}

/// Pieces of HTML that put URLs in attributes and text, next to tags,
/// entities, comments, raw text and wrapped URLs.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "<a href=\"/p\">",
        "<a href='q?x=1&amp;y=2'>",
        "</a>",
        "<img srcset=\"a.png 1x, b.png 2x\">",
        "<base href=\"http://b.example/d/\">",
        "<meta http-equiv=refresh content=\"0; url=/m\">",
        "http://t.example/a",
        "https://u.example/(x)",
        "www.w.example",
        " ",
        "\n",
        "(",
        ")",
        ".",
        "&lt;",
        "&gt;",
        "&amp;",
        "<b>",
        "</b>",
        "<!-- c -->",
        "<script>http://s.example/</script>",
        "<div data-x=\"see http://d.example/ y\" style='background:url(http://c.example/i.png)'>",
        "<style>.a{background:url(r.png)} /* http://sc.example/ */</style>",
        "<!-- http://c.example/ -->",
        "<!DOCTYPE html SYSTEM \"http://dt.example/\">",
        "<a ping=\"/p1 http://p.example/2\" xlink:href=/x>",
        "<title>",
        "</title>",
        "URL:",
        "<",
        "\"",
        "\u{4e2d}",
        "\u{3002}",
        "x",
        "/",
        ":",
    ])
}

proptest! {
    #[test]
    fn random_pages_read_alike_in_every_window(pieces in prop::collection::vec(piece(), 0..60)) {
        same_in_every_window(pieces.concat().as_bytes())?;
    }
}
