"""HTML: urls, find and scan_files against the CLI (the oracle) on the same
bytes: sniffed or forced (html=), relative links resolved against
<base href> or base= (--base), offsets and lines in the document."""

from __future__ import annotations

import subprocess
import warnings

import pytest

import urlsift
from conftest import cli_json, cli_lines, held_out_pages, run_cli

PAGE = b"""<!DOCTYPE html>
<html><head><title>t</title><base href="/docs/"></head>
<body><p>See <a href="guide/a.html">the guide</a> or http://text.example/p.
<img src="//img.example/i.png" srcset="s1.png 1x, /s2.png 2x">
<a href="a&amp;b.html?x=1&amp;y=2">entities</a> and www.www.example/w,
<!-- <a href="http://comment.example/">not a link</a> -->
<script>var u = "http://script.example/" + x;</script>
<form action="post.cgi"><a href=" https://ex.org/spaced ">s</a></form>
<a href="mailto:someone@example.com">m</a> &lt;http://escaped.example/&gt;
</body></html>
"""

RELATIVE = b"""<html><body>
<a href="a/b.html">x</a> <a href="/root">r</a> <a href="//net.example/n">n</a>
<a href="../up.html">u</a> <a href="?q=1">q</a> <a href="#frag">f</a> http://abs.example/t
</body></html>
"""

NOT_SNIFFED = b"""Notes, not a page: <a href="rel/x.html">x</a> and
<a href="http://a.example/y">y</a> http://b.example/z
"""

CASES = {"page": PAGE, "relative": RELATIVE, "not-sniffed": NOT_SNIFFED}
OPTIONS = [
    ({}, []),
    ({"base": "https://ex.org/x/index.html"}, ["--base", "https://ex.org/x/index.html"]),
    ({"html": True}, ["--html"]),
    ({"html": True, "base": "http://h.example/d/e.html"}, ["--html", "--base", "http://h.example/d/e.html"]),
    ({"html": False}, ["--no-html"]),
]
OPTION_IDS = ["sniffed", "base", "html", "html+base", "no-html"]


@pytest.mark.parametrize("bad", ["not absolute", " http://lead.example/", "notabase"])
def test_a_base_that_is_not_absolute_is_refused(cli, tmp_path, bad):
    p = tmp_path / "page.html"
    p.write_bytes(PAGE)
    r = subprocess.run([str(cli), "--base", bad, str(p)], capture_output=True)
    assert r.returncode == 2 and b"--base" in r.stderr
    for fn in (urlsift.urls, urlsift.find):
        with pytest.raises(ValueError, match="base"):
            fn(PAGE, base=bad)
    with pytest.raises(ValueError, match="base"):
        urlsift.scan_files([p], base=bad)


@pytest.mark.parametrize("kw,flags", OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_html_as_cli(cli, tmp_path, name, kw, flags):
    data = CASES[name]
    p = tmp_path / f"{name}.html"
    p.write_bytes(data)
    want = cli_lines(run_cli(cli, *flags, p).stdout)
    assert urlsift.urls(data, **kw) == want
    assert urlsift.urls(data, threads=1, **kw) == want
    rows = cli_json(run_cli(cli, "--format", "json", "--normalize", *flags, p).stdout)
    got = [m.to_dict() for m in urlsift.find(data, **kw)]
    assert got == rows
    if rows and "source" in rows[0]:
        # A link of a page says where in the page it was.
        assert {r["source"] for r in rows} <= {"text", "attribute", "css", "attribute-text", "script", "style", "comment"}
        assert urlsift.find(data, **kw)[0].source == rows[0]["source"]


def test_the_cases_mean_something():
    """What the cases above check, spelled out (the CLI agrees with each)."""
    base = "https://ex.org/x/index.html"
    assert urlsift.urls(PAGE, base=base) == [
        "https://ex.org/docs/guide/a.html",
        "http://text.example/p",
        "https://img.example/i.png",
        "https://ex.org/docs/s1.png",
        "https://ex.org/s2.png",
        "https://ex.org/docs/a&b.html?x=1&y=2",
        "www.www.example/w",
        "http://comment.example/",
        "http://script.example/",
        "https://ex.org/docs/post.cgi",
        "https://ex.org/spaced",
        "mailto:someone@example.com",
        "http://escaped.example/",
    ]
    # No base (the page's <base href> is relative itself): its relative
    # links are left out; the absolute URLs of comments and scripts are in.
    assert urlsift.urls(PAGE) == [
        "http://text.example/p",
        "www.www.example/w",
        "http://comment.example/",
        "http://script.example/",
        "https://ex.org/spaced",
        "mailto:someone@example.com",
        "http://escaped.example/",
    ]
    # html=False: the text rules over the markup.
    assert "http://comment.example/" in urlsift.urls(PAGE, html=False)
    assert urlsift.urls(RELATIVE, base="http://h.example/d/e.html") == [
        "http://h.example/d/a/b.html",
        "http://h.example/root",
        "http://net.example/n",
        "http://h.example/up.html",
        "http://h.example/d/e.html?q=1",
        "http://h.example/d/e.html#frag",
        "http://abs.example/t",
    ]
    assert urlsift.urls(NOT_SNIFFED) == ["http://a.example/y", "http://b.example/z"]
    assert urlsift.urls(NOT_SNIFFED, html=True, base="http://h.example/d/")[0] == "http://h.example/d/rel/x.html"
    m = urlsift.find(PAGE, base=base)[0]
    assert (m.source, m.source_name, m.found, m.warc_offset, m.line) == ("attribute", "a@href", "guide/a.html", None, 3)
    assert PAGE[m.start : m.end] == b"guide/a.html"
    assert list(m.to_dict())[-11:] == ["found", "source", "source_name", "warc_target_uri", "warc_record_id", "warc_date", "warc_type", "warc_offset", "warc_length", "http_status", "rel"]
    # Plain text has no web fields.
    assert "source" not in urlsift.find(NOT_SNIFFED)[0].to_dict()


def test_html_and_mail_refused_together():
    with pytest.raises(ValueError, match="html=True"):
        urlsift.urls(PAGE, mail=True, html=True)
    with pytest.raises(ValueError, match="html=True"):
        urlsift.find(PAGE, mail=True, html=True)
    with pytest.raises(ValueError, match="html=True"):
        urlsift.scan_files([], mail=True, html=True)
    # mail=True reads mail, whatever html= says otherwise.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", urlsift.MailWarning)
        assert urlsift.urls(PAGE, mail=True, html=False) == urlsift.urls(PAGE, mail=True)


REAL = held_out_pages()


@pytest.mark.skipif(len(REAL) < 5, reason="fewer than 5 HTML pages in the machine's documentation")
def test_real_pages_as_cli(cli):
    links = 0
    for p in REAL:
        data = p.read_bytes()
        for kw, flags in [({}, []), ({"html": True, "base": "https://docs.example/a/b/"}, ["--html", "--base", "https://docs.example/a/b/"])]:
            assert urlsift.urls(data, **kw) == cli_lines(run_cli(cli, *flags, p).stdout), p
            want = cli_json(run_cli(cli, "--format", "json", "--normalize", *flags, p).stdout)
            assert [m.to_dict() for m in urlsift.find(data, **kw)] == want, p
            links += sum(1 for r in want if r.get("source") == "attribute")
    assert links > 50


def test_html_longer_than_the_cap(cli, tmp_path):
    """Past 64 MiB a page is HTML to its last newline before the cap, then
    text (the CLI says so on stderr; urls issues a UserWarning)."""
    line = b'<p><a href="/l">l</a> http://t.example/%d</p>\n'
    body = b"".join(line % i for i in range(1_500_000))
    data = b"<html><base href='http://b.example/'>\n" + body + b'<a href="/after">x</a> http://after.example/\n'
    assert len(data) > 64 << 20
    p = tmp_path / "big.html"
    p.write_bytes(data)
    r = run_cli(cli, p)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = urlsift.urls(data)
    assert got == cli_lines(r.stdout)
    cli_msg = [l for l in r.stderr.decode().splitlines() if "HTML longer than" in l]
    msgs = [str(w.message) for w in caught if "HTML longer than" in str(w.message)]
    assert len(cli_msg) == 1 and msgs == [cli_msg[0].split(": ", 2)[2]]
    # The text after the cut: the relative link is not resolved there.
    assert got[-1] == "http://after.example/" and "http://b.example/after" not in got[-3:]


def test_scan_files_html_as_cli_parquet(cli, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import subprocess

    d = tmp_path / "site"
    d.mkdir()
    for name, data in CASES.items():
        (d / f"{name}.html").write_bytes(data)
    (d / "plain.txt").write_bytes(b"see http://plain.example/ <a href=x>\n")
    for kw, flags in OPTIONS:
        out = tmp_path / "cli.parquet"
        r = subprocess.run(
            [str(cli), "--format", "parquet", "--output", str(out), *flags, str(d)], capture_output=True
        )
        assert r.returncode == 0, r.stderr
        want = pq.read_table(out)
        got = urlsift.scan_files(d, **kw).read_all()
        assert got.schema.names == want.schema.names and got.equals(want), kw
        assert "source" in got.schema.names and got.num_rows > 5


@pytest.mark.parametrize("links_only", [False, True])
def test_links_only_as_the_cli(cli, tmp_path, links_only):
    flag = ["--links-only"] if links_only else []
    f = tmp_path / "page.html"
    f.write_bytes(PAGE)
    base = "https://ex.org/x/index.html"
    want = cli_lines(run_cli(cli, *flag, "--base", base, f).stdout)
    got = urlsift.urls(PAGE, base=base, links_only=links_only)
    assert got == want
    assert list(urlsift.iter_urls(PAGE, base=base, links_only=links_only)) == want
    assert [m.url for m in urlsift.find(PAGE, base=base, links_only=links_only)] == want
    # Scripts and comments give URLs only without links_only.
    assert ("http://script.example/" in got) is not links_only
    assert ("http://comment.example/" in got) is not links_only
    rows = urlsift.scan_files(f, base=base, links_only=links_only).read_all()
    assert rows.column("url").to_pylist() == want
    pa = pytest.importorskip("pyarrow")
    batch = urlsift.scan_arrow(pa.array([PAGE]), links_only=links_only)
    want_nobase = cli_lines(run_cli(cli, *flag, f).stdout)
    assert batch.column("url").to_pylist() == want_nobase


def test_links_only_of_a_web_archive_as_the_cli(cli):
    from conftest import ROOT

    path = ROOT / "crates/warc/tests/data/sample.warc.gz"
    for flag, lo in (([], False), (["--links-only"], True)):
        want = cli_lines(run_cli(cli, *flag, path).stdout)
        assert urlsift.urls(path.read_bytes(), links_only=lo) == want
    assert len(urlsift.urls(path.read_bytes(), links_only=True)) < len(urlsift.urls(path.read_bytes()))
