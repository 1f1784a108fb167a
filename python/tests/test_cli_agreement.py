"""The API against the CLI (the oracle) on every data file of the
repository and on held-out real text."""

from __future__ import annotations

import json
import random
import warnings

import pytest

import urlsift
from conftest import DATA_FILES, MAIL_FILES, ROOT, cli_json, cli_lines, run_cli

IDS = [str(p.relative_to(ROOT)) for p in DATA_FILES]
MAIL_IDS = [str(p.relative_to(ROOT)) for p in MAIL_FILES]


def test_there_is_data():
    assert len(DATA_FILES) > 40 and len(MAIL_FILES) > 10


@pytest.mark.parametrize("path", DATA_FILES, ids=IDS)
def test_urls_as_cli_prints(cli, path):
    data = path.read_bytes()
    assert urlsift.urls(data) == cli_lines(run_cli(cli, path).stdout)


@pytest.mark.parametrize("path", DATA_FILES, ids=IDS)
def test_find_as_cli_json(cli, path):
    data = path.read_bytes()
    want = cli_json(run_cli(cli, "--format", "json", "--normalize", path).stdout)
    assert [m.to_dict() for m in urlsift.find(data)] == want


@pytest.mark.parametrize("path", MAIL_FILES, ids=MAIL_IDS)
def test_mail_as_cli(cli, path):
    data = path.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", urlsift.MailWarning)
        got = urlsift.urls(data, mail=True)
        found = urlsift.find(data, mail=True)
    assert got == cli_lines(run_cli(cli, "--mail", path).stdout)
    want = cli_json(run_cli(cli, "--mail", "--format", "json", "--normalize", path).stdout)
    assert [m.to_dict() for m in found] == want


def test_mail_problems_are_warnings(cli):
    path = ROOT / "tests/data/mail/own/truncated-base64.eml"
    stderr = run_cli(cli, "--mail", path).stderr.decode()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        urlsift.urls(path.read_bytes(), mail=True)
    got = [str(w.message) for w in caught if issubclass(w.category, urlsift.MailWarning)]
    # The CLI prints `urlsift: FILE: byte N: message M: what`.
    want = [line.split(": ", 2)[2] for line in stderr.splitlines() if ": byte " in line]
    assert got and got == want


def test_text_under_mail_is_a_warning(cli):
    path = ROOT / "tests/data/mail/mail-parser/Apache-2.0.txt"
    stderr = run_cli(cli, "--mail", path).stderr.decode()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = urlsift.find(path.read_bytes(), mail=True)
    got = [str(w.message) for w in caught if issubclass(w.category, urlsift.MailWarning)]
    want = [line.split(": ", 2)[2] for line in stderr.splitlines() if ": byte " in line]
    assert got == want == ["byte 0: not mail (no mbox From line or header block); scanned as plain text"]
    assert found and all(m.part == 1 and m.content_type == "text/plain" for m in found)
    assert [(m.part_start, m.part_line) for m in found] == [(m.start, m.line) for m in found]


def test_held_out_text(cli, held_out):
    data, path = held_out
    assert urlsift.urls(data) == cli_lines(run_cli(cli, path).stdout)
    want = cli_json(run_cli(cli, "--format", "json", "--normalize", path).stdout)
    assert len(want) > 1000
    assert [m.to_dict() for m in urlsift.find(data)] == want


def test_str_input_is_utf8(cli, tmp_path):
    text = "详见http://example.com/a。 and https://de.wikipedia.org/wiki/Köln ok"
    p = tmp_path / "t.txt"
    p.write_bytes(text.encode())
    assert urlsift.urls(text) == cli_lines(run_cli(cli, p).stdout)
    assert urlsift.urls(text) == ["http://example.com/a", "https://de.wikipedia.org/wiki/Köln"]


def test_invalid_utf8_url_round_trips(cli, tmp_path):
    data = b"a http://x.example/\xff\xfe/\xc3\xa9 b\n"
    p = tmp_path / "t.txt"
    p.write_bytes(data)
    got = urlsift.urls(data)
    assert [u.encode("utf-8", "surrogateescape") for u in got] == run_cli(cli, p).stdout.splitlines()


def reference_lines(data: bytes) -> list[bytes]:
    """The references of the subcommands' standard input: lines without
    their `\n` or `\r\n`."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def test_parse_as_cli(cli):
    data = (ROOT / "datasets/urls.txt").read_bytes()
    lines = reference_lines(data)
    out = run_cli_any(cli, "parse", stdin=data).stdout
    want = [json.loads(line) for line in out.splitlines()]
    assert len(want) == len(lines)
    assert [urlsift.parse(u) for u in lines] == want


def run_cli_any(cli, *args, stdin=None):
    import subprocess

    return subprocess.run([str(cli), *args], input=stdin, capture_output=True, timeout=300)


@pytest.mark.parametrize(
    "level,flags",
    [("scheme", []), ("syntax", ["--syntax-only"]), ("no-fragment", ["--drop-fragment"])],
)
def test_normalize_as_cli(cli, level, flags):
    data = (ROOT / "datasets/urls.txt").read_bytes()
    lines = reference_lines(data)
    r = run_cli_any(cli, "normalize", *flags, stdin=data)
    good, bad = [], 0
    for u in lines:
        try:
            good.append(urlsift.normalize(u, level))
        except urlsift.URIError as e:
            assert e.offset >= 0 and e.reason
            bad += 1
    assert good == r.stdout.decode().split("\n")[:-1]
    assert bad == len(r.stderr.splitlines()) and bad > 0
    # drop_fragment= is --drop-fragment with either level.
    assert urlsift.normalize("HTTP://a:80/#x", "syntax", drop_fragment=True) == "http://a:80/"


def test_resolve_as_cli(cli):
    ex = json.loads((ROOT / "crates/uri/tests/data/conformance/rfc3986_section5.4/resolution_examples.json").read_text())
    cases = ex["normal"] + ex.get("abnormal", [])
    refs = [c["ref"] for c in cases]
    out = run_cli_any(cli, "resolve", ex["base"], *refs).stdout.decode().splitlines()
    got = [urlsift.resolve(ex["base"], r) for r in refs]
    assert got == out == [c["expected"] for c in cases]


def test_errors_carry_offsets():
    with pytest.raises(urlsift.URIError) as e:
        urlsift.normalize("http://[::1/x")
    assert (e.value.offset, e.value.which) == (11, None)
    assert "at byte 11" in str(e.value)
    with pytest.raises(urlsift.URIError) as e:
        urlsift.resolve("no-scheme/x", "g")
    assert e.value.which == "base"
    with pytest.raises(urlsift.URIError) as e:
        urlsift.resolve("http://a/", "http://a b/")
    assert (e.value.offset, e.value.which) == (8, None)
    with pytest.raises(ValueError, match="unknown level"):
        urlsift.normalize("http://a/", "raw")


def test_urls_with_and_without_the_str_table(cli, tmp_path):
    """Runs of distinct URLs (made without the table of recent str objects),
    then of repeats (looked up), then distinct URLs with non-ASCII and
    invalid UTF-8 bytes, joined wrapped URLs (not spans of the input), and
    repeats turning distinct: every one as the CLI prints it."""
    rng = random.Random(5)
    parts = [b"see http://d%d.example/%d ok\n" % (i, i) for i in range(70_000)]
    parts += [b"<http://r%d.example/x> " % rng.randrange(50) for _ in range(200_000)]
    parts += [b"https://\xc3\xa9.example/%d/\xff ok\n" % i for i in range(70_000)]
    parts += [b"<URL:http://w.example/a%d\n  /b> " % (i % 7) for i in range(20_000)]
    parts += [b"www.s.example/%d " % (i % 3) for i in range(5_000)]
    parts += [b"www.t%d.example " % i for i in range(60_000)]
    data = b"".join(parts)
    p = tmp_path / "t.txt"
    p.write_bytes(data)
    want = cli_lines(run_cli(cli, p).stdout)
    assert len(want) == 425_000
    for threads in (1, 2):
        got = urlsift.urls(data, threads=threads)
        assert got == want
    # Repeats share their str once the table is back in use (within 16
    # blocks of 4096 URLs).
    repeats = got[170_000:270_000]
    assert len({id(u) for u in repeats}) <= 100
