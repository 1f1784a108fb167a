"""Hostile input raises or returns, never crashes the interpreter; the
result never depends on the thread count."""

from __future__ import annotations

import random
import warnings

import pytest

import urlsift
from conftest import ROOT, cli_lines, run_cli

HOSTILE = {
    "invalid-utf8": bytes(range(256)) * 64 + b" http://a.example/\xff\xfe\xfd ",
    "nuls": b"\0" * 100_000 + b"http://a.example/\0x\0 www.b.example\0",
    "huge-line": b"http://a.example/" + b"a" * (48 << 20),
    "huge-no-space": b"x" * (32 << 20),
    "scheme-repeated": b"http://" * 1_000_000,
    "parens": b"http://a.example/" + b"(" * 1_000_000 + b" " + b")" * 1_000_000,
    "angle-unclosed": b"<http://a.example/\n " * 200_000,
    "www-repeated": b"www." * 1_000_000,
    "colons": b":" * 2_000_000,
    "random": random.Random(22).randbytes(4 << 20),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_plain_agrees_with_cli(cli, tmp_path, name):
    data = HOSTILE[name]
    p = tmp_path / name
    p.write_bytes(data)
    assert urlsift.urls(data) == cli_lines(run_cli(cli, p).stdout)
    assert len(urlsift.find(data, threads=2)) == len(urlsift.urls(data, threads=1))


MALFORMED_MAIL = {
    "random": random.Random(7).randbytes(1 << 20),
    "headers-only": b"From: a\nSubject: http://a.example/\n",
    "bad-boundary": b"Content-Type: multipart/mixed; boundary=\"x\"\n\n--y\nhttp://a.example/\n--x--\n" * 1000,
    "bad-base64": b"Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n!!!!aHR0cDovL2EuZXhhbXBsZS8=\n====\n",
    "bad-qp": b"Content-Transfer-Encoding: quoted-printable\n\nhttp://a.example/=ZZ=\n=4",
    "mbox-of-garbage": b"From x\n" + b"\xff\0" * 5000 + b"\nFrom y\n\n\n",
    "nested-deep": b"Content-Type: multipart/mixed; boundary=a\n\n--a\n" * 3000,
    "fuzz-panic": (ROOT / "tests/data/mail/own/fuzz-mail-parser-panic.eml").read_bytes(),
}


@pytest.mark.parametrize("name", sorted(MALFORMED_MAIL))
def test_malformed_mail_agrees_with_cli(cli, tmp_path, name):
    data = MALFORMED_MAIL[name]
    p = tmp_path / name
    p.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", urlsift.MailWarning)
        got = urlsift.urls(data, mail=True)
        assert len(urlsift.find(data, mail=True)) == len(got)
    assert got == cli_lines(run_cli(cli, "--mail", p).stdout)


def test_bad_arguments_raise():
    with pytest.raises(TypeError):
        urlsift.urls(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        urlsift.urls(bytearray(b"http://a/"))  # type: ignore[arg-type]
    with pytest.raises(UnicodeEncodeError):
        urlsift.urls("http://a.example/\ud800")
    with pytest.raises(ValueError):
        urlsift.urls(b"x", threads=0)
    with pytest.raises(OverflowError):
        urlsift.urls(b"x", threads=-1)
    with pytest.raises(TypeError):
        urlsift.urls(b"x", True)  # type: ignore[misc]  (keyword-only)
    with pytest.raises(TypeError):
        urlsift.parse(None)  # type: ignore[arg-type]
    # Bad references return (parse) or raise URIError (normalize, resolve).
    for bad in [b"\xff", b"\0", b"http://[", b"%", b"", b":" * 100_000]:
        assert urlsift.parse(bad)["url"] is not None
        try:
            urlsift.normalize(bad)
        except urlsift.URIError as e:
            assert e.offset <= len(bad)
        try:
            urlsift.resolve("http://a/b", bad)
        except urlsift.URIError as e:
            assert e.offset <= len(bad)


def test_empty_input():
    assert urlsift.urls(b"") == [] and urlsift.urls("") == []
    assert urlsift.find(b"", mail=True) == []


@pytest.fixture(scope="module")
def big(held_out) -> bytes:
    # Several chunks per thread, so the parallel scan stitches chunks.
    data, _ = held_out
    return data


def test_threads_give_identical_results(big):
    one = urlsift.urls(big, threads=1)
    assert len(one) > 1000
    for t in (None, 2, 3, 8):
        assert urlsift.urls(big, threads=t) == one, t
    f1 = [m.to_dict() for m in urlsift.find(big, threads=1)]
    assert [m.to_dict() for m in urlsift.find(big, threads=3)] == f1
    assert [m["url"] for m in f1] == [u.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for u in one]


def test_threads_identical_for_mail():
    mbox = (ROOT / "datasets/sample.mbox").read_bytes() * 40
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", urlsift.MailWarning)
        one = [m.to_dict() for m in urlsift.find(mbox, mail=True, threads=1)]
        assert len(one) > 100
        for t in (None, 2, 5):
            assert [m.to_dict() for m in urlsift.find(mbox, mail=True, threads=t)] == one


def test_gil_is_released(big):
    import threading
    import time

    ticks = 0
    done = threading.Event()

    def tick():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.0005)

    t = threading.Thread(target=tick)
    t.start()
    try:
        for _ in range(3):
            urlsift.find(big * 2, threads=1)
    finally:
        done.set()
        t.join()
    # With the GIL held for the whole scan, the ticker would starve.
    assert ticks > 20


def test_repeated_urls(cli, tmp_path):
    # urls() shares the str of a URL seen recently (a cache by hash):
    # many URLs of one length, repeating at several distances, some
    # rewritten (joined across lines), must all come back as found.
    rng = random.Random(3)
    parts = []
    for i in range(300_000):
        k = rng.choice([i % 7, i % 5000, i % 200_000, rng.randrange(10**9)])
        if i % 97 == 0:
            parts.append(b"<http://a.example/%09d\n x>" % k)
        else:
            parts.append(b"http://a.example/%09d" % k)
    data = b" ".join(parts)
    p = tmp_path / "rep.txt"
    p.write_bytes(data)
    want = cli_lines(run_cli(cli, p).stdout)
    assert urlsift.urls(data, threads=1) == want
    assert urlsift.urls(data) == want
    assert len(set(want)) > 100_000
