"""`iter_urls` and `iter_find`: the lists of `urls` and `find`, as
iterators that scan ahead in the background."""

from __future__ import annotations

import gc
import gzip
import itertools
import threading
import time
import warnings

import pytest

import urlsift
from conftest import ROOT

WARC = ROOT / "crates/warc/tests/data"
INPUTS = {
    "text": (ROOT / "datasets/sample.txt").read_bytes(),
    "mail": (ROOT / "datasets/sample.mbox").read_bytes(),
    "warc.gz": (WARC / "sample.warc.gz").read_bytes(),
    "gzip text": gzip.compress((ROOT / "datasets/sample.txt").read_bytes()),
    "html": b'<!DOCTYPE html><a href="/x">x</a> http://t.example/y',
}


def many_urls(n: int) -> bytes:
    """Text with `n` URLs: several batches of `iter_urls` and `iter_find`."""
    return b"".join(b"see http://h%d.example/p/%d, " % (i % 977, i) for i in range(n))


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("threads", [1, 2])
def test_iter_urls_is_urls(name, threads):
    data = INPUTS[name]
    mail = name == "mail"
    kw = dict(mail=mail, threads=threads, base="http://base.example/")
    want = urlsift.urls(data, **kw)
    assert want
    assert list(urlsift.iter_urls(data, **kw)) == want


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_iter_find_is_find(name):
    data = INPUTS[name]
    mail = name == "mail"
    want = [m.to_dict() for m in urlsift.find(data, mail=mail)]
    got = [m.to_dict() for m in urlsift.iter_find(data, mail=mail)]
    assert got == want


def test_many_batches_in_order():
    data = many_urls(200_000)
    it = urlsift.iter_urls(data, threads=2)
    assert iter(it) is it
    got = list(it)
    assert len(got) == 200_000
    assert got == urlsift.urls(data)
    # Exhausted: it stays so.
    assert next(it, None) is None
    found = urlsift.iter_find(data)
    first = list(itertools.islice(found, 5000))
    assert [m.url for m in first] == got[:5000]
    assert sum(1 for _ in found) == 195_000


def test_str_input_and_surrogates():
    assert list(urlsift.iter_urls("é http://ü.example/ä")) == ["http://ü.example/ä"]
    bad = b"http://a.example/\xff\xfe"
    assert list(urlsift.iter_urls(bad)) == urlsift.urls(bad)


def test_bad_arguments_raise_at_the_call():
    with pytest.raises(TypeError):
        urlsift.iter_urls(123)
    with pytest.raises(ValueError):
        urlsift.iter_urls(b"x", threads=0)
    with pytest.raises(ValueError):
        urlsift.iter_find(b"x", html=True, mail=True)
    with pytest.raises(ValueError, match="base"):
        urlsift.iter_urls(b"x", base="not absolute")


def test_warnings_come_at_the_end():
    data = (WARC / "sample.warc.gz").read_bytes()
    cut = data[: len(data) - 100]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        want = urlsift.urls(cut)
    assert any(issubclass(x.category, urlsift.InputWarning) for x in w)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        it = urlsift.iter_urls(cut)
        got = list(it)
    assert got == want
    assert any(issubclass(x.category, urlsift.InputWarning) for x in w)


def test_an_iterator_dropped_early_does_not_hang():
    data = many_urls(300_000)
    for _ in range(5):
        it = urlsift.iter_urls(data, threads=2)
        assert next(it).startswith("http://")
        del it
        gc.collect()
    # The background scans end on their own.
    deadline = time.time() + 60
    while threading.active_count() > 1 and time.time() < deadline:
        time.sleep(0.05)
    assert list(urlsift.iter_urls(b"a http://x.example/ b")) == ["http://x.example/"]


def test_the_input_outlives_its_name():
    # The iterator holds the bytes: dropping the caller's reference is safe.
    data = many_urls(100_000)
    want = urlsift.urls(data)
    it = urlsift.iter_urls(data)
    del data
    gc.collect()
    assert list(it) == want
