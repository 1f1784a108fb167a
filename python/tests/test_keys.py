"""The de-duplication keys: surt, whatwg, domain, host_ascii and the key
columns, against the CLI (`urlsift normalize --dedup-key`, `--key-field`)."""

from __future__ import annotations

import json

import pytest

import urlsift
from conftest import run_cli

URLS = [
    "http://www.Example.com/A/./b/../c/?b=2&a=1#frag",
    "https://例子.测试:443/a",
    "http://xn--fsqu00a.xn--0zwm56d/a",
    "HTTP://BÜCHER.example/%7euser",
    "http://3232235777/x",
    "mailto:Someone@Example.com",
    "http://a.example/x?jsessionid=0123456789abcdef0123456789abcdef&q=1",
]


@pytest.mark.parametrize("level", ["surt", "whatwg"])
def test_functions_match_the_cli(cli, level):
    r = run_cli(cli, "normalize", "--dedup-key", level, stdin="".join(u + "\n" for u in URLS).encode())
    want = r.stdout.decode().split("\n")[:-1]
    fn = urlsift.surt if level == "surt" else urlsift.whatwg
    assert [fn(u) for u in URLS] == want
    assert [fn(u.encode()) for u in URLS] == want


def test_failures_raise():
    with pytest.raises(urlsift.URIError):
        urlsift.surt("http://a.example:99999/")
    with pytest.raises(urlsift.URIError):
        urlsift.whatwg("http://[::1/")
    with pytest.raises(urlsift.URIError):
        urlsift.whatwg("/relative")
    assert urlsift.whatwg("../c", base="http://a/b/d") == "http://a/c"


def test_one_host_in_every_spelling():
    spellings = [
        "例子.测试",
        "xn--fsqu00a.xn--0zwm56d",
        "XN--FSQU00A.xn--0ZWM56D",
        "例子。测试",
        "%E4%BE%8B%E5%AD%90.%E6%B5%8B%E8%AF%95",
    ]
    assert {urlsift.host_ascii(h) for h in spellings} == {"xn--fsqu00a.xn--0zwm56d"}
    assert {urlsift.domain("www." + h) for h in spellings} == {"xn--fsqu00a.xn--0zwm56d"}
    assert {urlsift.surt(f"http://{h}/a") for h in spellings} == {"xn--0zwm56d,xn--fsqu00a)/a"}
    assert {urlsift.whatwg(f"http://{h}/a") for h in spellings} == {"http://xn--fsqu00a.xn--0zwm56d/a"}


def test_domains():
    assert urlsift.domain("news.bbc.co.uk") == "bbc.co.uk"
    assert urlsift.domain("user.github.io") == "user.github.io"
    assert urlsift.domain("co.uk") is None
    assert urlsift.domain("192.0.2.1") is None
    assert urlsift.host_ascii("a<b") is None


def test_psl_version_is_the_cli_one(cli):
    out = run_cli(cli, "--version").stdout.decode()
    assert f"public suffix list: {urlsift.PSL_VERSION}" in out


def test_scan_arrow_key_column():
    pa = pytest.importorskip("pyarrow")
    arr = pa.array([" ".join(URLS[:4]).encode(), None, URLS[4].encode()], type=pa.binary())
    got = urlsift.scan_arrow(arr, key="surt").to_pydict()
    assert got["key"] == [urlsift.surt(u) for u in URLS[:5]]
    assert got["domain"][:2] == ["example.com", "xn--fsqu00a.xn--0zwm56d"]
    assert got["host_ascii"][3] == "xn--bcher-kva.example"
    assert "key" not in urlsift.scan_arrow(arr).schema.names
    with pytest.raises(ValueError):
        urlsift.scan_arrow(arr, key="nope")


def test_scan_files_key_column_matches_the_cli(cli, tmp_path):
    pytest.importorskip("pyarrow")
    f = tmp_path / "a.txt"
    f.write_text(" ".join(URLS) + "\n")
    for level in ["surt", "whatwg"]:
        rows = urlsift.scan_files(f, key=level).read_all().to_pylist()
        out = run_cli(cli, "--format", "json", "--key-field", "--dedup-key", level, f).stdout
        want = [json.loads(l) for l in out.decode().splitlines()]
        assert [r["key"] for r in rows] == [w["key"] for w in want]
        assert [r["domain"] for r in rows] == [w["domain"] for w in want]
        assert [r["host_ascii"] for r in rows] == [w["host_ascii"] for w in want]
    rows = urlsift.scan_files(f).read_all().to_pylist()
    assert all(r["key"] is None for r in rows)
