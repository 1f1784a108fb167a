"""scan_arrow: every binary/string type, nulls, slices, chunked arrays."""

from __future__ import annotations

import pytest

pa = pytest.importorskip("pyarrow")

import urlsift  # noqa: E402
from conftest import DATA_FILES  # noqa: E402

ROWS = [
    b"see http://a.example/x, and <http://b.example/y\n z>",
    None,
    b"",
    b"www.Example.COM/p and HTTP://C.example:80/%7e",
    "详见http://example.com/a。".encode(),
    b"\xff http://d.example/\xfe nothing",
    None,
    b"mailto:someone@example.org news:comp.lang.rust",
]


WEB = ("found", "source", "source_name", "warc_target_uri", "warc_record_id", "warc_date", "warc_type", "warc_offset",
       "warc_length", "http_status", "rel")
NAMES = ["row", "start", "end", "url", "normalized", "host", "host_ascii", "domain", *WEB]


def expected(rows, offset=0):
    want = {k: [] for k in NAMES}
    for i, r in enumerate(rows):
        if r is None:
            continue
        for m in urlsift.find(r, threads=1):
            want["row"].append(i + offset)
            want["start"].append(m.start)
            want["end"].append(m.end)
            want["url"].append(m.url)
            want["normalized"].append(m.normalized)
            want["host"].append(m.host)
            want["host_ascii"].append(urlsift.host_ascii(m.host) if m.host else None)
            want["domain"].append(urlsift.domain(m.host) if m.host else None)
            # Text rows: no record fields.
            for k in WEB:
                want[k].append(None)
    return want


@pytest.mark.parametrize("typ", ["binary", "large_binary", "string", "large_string"])
def test_types_and_nulls(typ):
    rows = ROWS
    if "string" in typ:
        rows = [r if r is None else r.decode("utf-8", "replace").encode() for r in ROWS]
        arr = pa.array([r if r is None else r.decode() for r in rows], type=getattr(pa, typ)())
    else:
        arr = pa.array(rows, type=getattr(pa, typ)())
    got = urlsift.scan_arrow(arr)
    assert isinstance(got, pa.RecordBatch)
    assert got.schema.names == NAMES
    assert got.to_pydict() == expected(rows)
    assert got.schema.field("url").type == (pa.large_string() if "large" in typ else pa.string())
    assert urlsift.scan_arrow(arr, threads=1).equals(got)


def test_slices():
    arr = pa.array(ROWS * 3, type=pa.binary())
    for start, length in [(1, 5), (3, 10), (8, 0), (0, len(arr)), (len(arr) - 2, 2)]:
        s = arr.slice(start, length)
        want = expected((ROWS * 3)[start : start + length])
        assert urlsift.scan_arrow(s).to_pydict() == want, (start, length)


def test_chunked():
    chunks = [pa.array(ROWS[:3], pa.binary()), pa.array(ROWS[3:], pa.binary())]
    got = urlsift.scan_arrow(pa.chunked_array(chunks))
    assert got.to_pydict() == expected(ROWS)
    empty = urlsift.scan_arrow(pa.chunked_array([], type=pa.binary()))
    assert empty.num_rows == 0


def test_zero_copy_and_files():
    # Each file a row, as the Spark job reads them; same as urls() per file.
    files = [p.read_bytes() for p in DATA_FILES]
    arr = pa.array(files, type=pa.large_binary())
    got = urlsift.scan_arrow(arr, threads=2)
    per_row = [[] for _ in files]
    for row, url in zip(got.column("row").to_pylist(), got.column("url").to_pylist()):
        per_row[row].append(url)
    for i, data in enumerate(files):
        want = [u.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for u in urlsift.urls(data)]
        assert per_row[i] == want


def test_mail_rows():
    from conftest import ROOT

    mbox = (ROOT / "datasets/sample.mbox").read_bytes()
    got = urlsift.scan_arrow(pa.array([None, mbox], pa.binary()), mail=True)
    assert got.column("url").to_pylist() == [
        m.url for m in urlsift.find(mbox, mail=True)
    ]
    assert set(got.column("row").to_pylist()) == {1}


def test_mail_rows_that_are_not_mail_warn_a_few_times():
    import warnings

    # Bodies without headers, as a column of mail often holds: each row is
    # scanned as plain text, and the warnings stop after the first few, as
    # the CLI's stop after the first problems of a file.
    rows = [b"hello http://r%d.example/ bye" % i for i in range(1000)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = urlsift.scan_arrow(pa.array(rows, pa.binary()), mail=True)
    assert got.column("url").to_pylist() == ["http://r%d.example/" % i for i in range(1000)]
    msgs = [str(w.message) for w in caught if issubclass(w.category, urlsift.MailWarning)]
    assert msgs[:2] == [
        "row 0: byte 0: not mail (no mbox From line or header block); scanned as plain text",
        "row 1: byte 0: not mail (no mbox From line or header block); scanned as plain text",
    ]
    assert len(msgs) == 11
    assert msgs[-1] == "990 more problems not shown (1000 problems in 1000 rows)"


def test_bad_types():
    with pytest.raises(TypeError):
        urlsift.scan_arrow(pa.array([1, 2, 3]))
    with pytest.raises(Exception):
        urlsift.scan_arrow([b"not an arrow array"])
