"""Web archives and compressed bytes in memory: `urls`, `find` and
`scan_arrow` read them as the CLI reads the same bytes from a file."""

from __future__ import annotations

import gzip
import subprocess
import warnings

import pytest

import urlsift
from conftest import ROOT, cli_json, cli_lines, run_cli

DATA = ROOT / "crates/warc/tests/data"
ARCHIVES = ["sample.warc", "sample.warc.gz", "sample.wet"]


@pytest.mark.parametrize("name", ARCHIVES)
def test_urls_of_an_archive_as_cli(cli, name):
    path = DATA / name
    assert urlsift.urls(path.read_bytes()) == cli_lines(run_cli(cli, path).stdout)


@pytest.mark.parametrize("name", ARCHIVES)
def test_find_gives_the_record_fields_as_cli(cli, name):
    path = DATA / name
    want = cli_json(run_cli(cli, "--format", "json", path).stdout)
    got = [m.to_dict() for m in urlsift.find(path.read_bytes())]
    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        for k in ("url", "source", "source_name", "found", "warc_target_uri",
                  "warc_record_id", "warc_date", "warc_type", "warc_offset",
                  "warc_length", "http_status", "rel"):
            assert g[k] == w[k], (k, g, w)


def test_scan_arrow_rows_of_archives_and_text(cli):
    pa = pytest.importorskip("pyarrow")
    warc = (DATA / "sample.warc.gz").read_bytes()
    text = b"see http://text.example/a and more"
    batch = urlsift.scan_arrow(pa.array([warc, text], type=pa.binary()))
    want = cli_json(run_cli(cli, "--format", "json", DATA / "sample.warc.gz").stdout)
    rows = batch.column("row").to_pylist()
    urls = batch.column("url").to_pylist()
    n = rows.count(0)
    assert urls[:n] == [w["url"] for w in want]
    assert batch.column("warc_target_uri").to_pylist()[:n] == [w["warc_target_uri"] for w in want]
    assert batch.column("warc_offset").to_pylist()[:n] == [w["warc_offset"] for w in want]
    assert batch.column("source").to_pylist()[:n] == [w["source"] for w in want]
    for k in ("warc_length", "http_status", "rel"):
        assert batch.column(k).to_pylist()[:n] == [w[k] for w in want], k
    assert any(w["warc_length"] for w in want) and any(w["http_status"] == 200 for w in want)
    # The text row: its URL, with no record fields.
    assert urls[n:] == ["http://text.example/a"]
    assert batch.column("warc_offset").to_pylist()[n:] == [None]
    for k in ("warc_offset", "warc_length", "http_status"):
        assert str(batch.schema.field(k).type) == "int64", k


def test_gzip_and_zstd_text_are_decoded(cli):
    text = (ROOT / "datasets/sample.txt").read_bytes()
    want = urlsift.urls(text)
    assert want
    assert urlsift.urls(gzip.compress(text)) == want
    zstd = pytest.importorskip("zstandard")
    assert urlsift.urls(zstd.ZstdCompressor().compress(text)) == want


def test_a_broken_archive_warns_and_keeps_what_it_read(cli):
    path = DATA / "truncated.warc.gz"
    # The CLI reports the cut (exit 2) and prints what it read before it.
    r = subprocess.run([str(cli), str(path)], capture_output=True, timeout=300)
    assert r.returncode == 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = urlsift.urls(path.read_bytes())
    assert got == cli_lines(r.stdout)
    assert got, "the records before the cut give their links"
    assert any(issubclass(x.category, urlsift.InputWarning) for x in w)
