"""scan_files against the CLI's Parquet output (the oracle): the same rows,
columns and types for files, directories, gzip, mail and web archives;
input errors, early close and the thread cap."""

from __future__ import annotations

import gc
import gzip
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import urlsift
from conftest import DATA_FILES, MAIL_FILES, ROOT

WARC = ROOT / "crates/warc/tests/data"
IDS = [str(p.relative_to(ROOT)) for p in DATA_FILES]
MAIL_IDS = [str(p.relative_to(ROOT)) for p in MAIL_FILES]


def cli_parquet(cli, tmp_path, *args) -> tuple[object, bytes]:
    """The CLI's `--format parquet` table for ARGS, and its stderr."""
    out = tmp_path / f"cli-{len(list(tmp_path.iterdir()))}.parquet"
    r = subprocess.run(
        [str(cli), "--format", "parquet", "--output", str(out), *map(str, args)],
        capture_output=True,
        timeout=300,
    )
    assert r.returncode in (0, 1, 2), r.stderr[-2000:]
    return pq.read_table(out), r.stderr


def assert_same(got, want) -> None:
    # Columns and types first (a clearer failure), then every value.
    assert got.schema.names == want.schema.names
    assert got.schema.types == want.schema.types
    assert got.num_rows == want.num_rows
    assert got.equals(want)


def test_schema_is_the_cli_parquet_schema(cli, tmp_path):
    path = ROOT / "datasets/sample.txt"
    want, _ = cli_parquet(cli, tmp_path, path)
    assert urlsift.scan_files(path).schema.equals(want.schema, check_metadata=False)
    mbox = ROOT / "datasets/sample.mbox"
    want, _ = cli_parquet(cli, tmp_path, "--mail", mbox)
    with urlsift.scan_files(mbox, mail=True) as s:
        assert s.schema.equals(want.schema, check_metadata=False)
        assert "message_id" in s.schema.names


@pytest.mark.parametrize("path", DATA_FILES, ids=IDS)
def test_file_as_cli_parquet(cli, tmp_path, path):
    want, _ = cli_parquet(cli, tmp_path, path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = urlsift.scan_files(str(path)).read_all()
    assert_same(got, want)


@pytest.mark.parametrize("path", MAIL_FILES, ids=MAIL_IDS)
def test_mail_as_cli_parquet(cli, tmp_path, path):
    want, _ = cli_parquet(cli, tmp_path, "--mail", path)
    assert_same(urlsift.scan_files(path, mail=True).read_all(), want)


def test_directories_as_cli(cli, tmp_path):
    inputs = [ROOT / "tests/data", ROOT / "datasets/sample.txt", WARC, ROOT / "datasets/urls.txt"]
    want, stderr = cli_parquet(cli, tmp_path, *inputs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batches = list(urlsift.scan_files(inputs, threads=3, errors="warn"))
    got = pa.Table.from_batches(batches)
    assert_same(got, want)
    assert len(set(got.column("file").to_pylist())) > 20
    # The broken web archives, in order, as the CLI reports them.
    warned = [str(w.message) for w in caught if w.category is urlsift.InputWarning]
    broken = ("/truncated.warc.gz: ", "/corrupt-member.warc.gz: ")
    msgs = [m for m in warned if any(b in m for b in broken)]
    assert msgs == [l.removeprefix("urlsift: ") for l in stderr.decode().splitlines() if any(b in l for b in broken)]
    assert len(msgs) == 2
    # Batches are full but where an input failed, and at the end.
    assert all(0 < b.num_rows <= 8192 for b in batches)
    assert sum(b.num_rows < 8192 for b in batches) <= len(warned) + 1


def test_gzip_file(cli, tmp_path):
    text = (ROOT / "datasets/sample.txt").read_bytes()
    gz = tmp_path / "sample.txt.gz"
    gz.write_bytes(gzip.compress(text))
    want, _ = cli_parquet(cli, tmp_path, gz)
    got = urlsift.scan_files(gz).read_all()
    assert_same(got, want)
    plain = urlsift.scan_files(ROOT / "datasets/sample.txt").read_all()
    assert got.num_rows == plain.num_rows > 100
    assert got.drop_columns(["file"]).equals(plain.drop_columns(["file"]))


@pytest.mark.parametrize("name", ["sample.warc", "sample.warc.gz", "whole.warc.gz", "sample.wet", "lying-length.warc.gz"])
def test_web_archive_as_cli(cli, tmp_path, name):
    path = WARC / name
    want, _ = cli_parquet(cli, tmp_path, path)
    got = urlsift.scan_files(path).read_all()
    assert got.num_rows > 0
    assert_same(got, want)


@pytest.mark.parametrize("name", ["truncated.warc.gz", "corrupt-member.warc.gz"])
def test_broken_web_archive_raises_after_its_rows(cli, tmp_path, name):
    path = WARC / name
    want, stderr = cli_parquet(cli, tmp_path, path)
    line = [l for l in stderr.decode().splitlines() if ": byte " in l][0]
    offset = int(line.split(": byte ")[1].split(":")[0])
    got = []
    with pytest.raises(urlsift.InputError) as e:
        for b in urlsift.scan_files(path):
            got.append(b)
    assert (e.value.path, e.value.offset) == (str(path), offset)
    assert isinstance(e.value, OSError) and e.value.reason in line
    assert str(e.value) == line.removeprefix("urlsift: ")
    # Every row before the error, as the CLI wrote them.
    assert want.num_rows > 0
    assert_same(pa.Table.from_batches(got, schema=want.schema), want)


def test_missing_path_raises_after_the_rows_before(cli, tmp_path):
    a = ROOT / "datasets/sample.txt"
    missing = tmp_path / "missing.txt"
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(a.read_bytes())[:3000])
    want_a, _ = cli_parquet(cli, tmp_path, a)
    got = []
    with pytest.raises(urlsift.InputError) as e:
        for b in urlsift.scan_files([a, missing, a]):
            got.append(b)
    assert e.value.path == str(missing) and e.value.offset is None
    assert isinstance(e.value, OSError)
    assert "No such file" in e.value.reason
    assert_same(pa.Table.from_batches(got), want_a)

    # errors="warn": one warning per failed input, in order, and the rest.
    want, stderr = cli_parquet(cli, tmp_path, a, missing, bad, a)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = urlsift.scan_files([a, missing, bad, a], errors="warn").read_all()
    msgs = [str(w.message) for w in caught if w.category is urlsift.InputWarning]
    cli_msgs = [l.removeprefix("urlsift: ") for l in stderr.decode().splitlines()]
    assert msgs == cli_msgs and len(msgs) == 2
    assert "at byte" in msgs[1]
    assert_same(got, want)


def test_unreadable_and_odd_inputs_never_crash(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "ok.txt").write_bytes(b"see http://ok.example/\n")
    (d / "empty").write_bytes(b"")
    (d / "zstd-junk.zst").write_bytes(b"\x28\xb5\x2f\xfd" + b"\xff" * 500)
    (d / "gz-junk.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"\x00\xff" * 250)
    (d / "nul.bin").write_bytes(bytes(range(256)) * 256)
    os.symlink(d / "nowhere", d / "dangling")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = urlsift.scan_files([d, tmp_path / "nope", "-"], errors="warn").read_all()
    paths = {w.message.args[0].split(": ")[0] for w in caught if w.category is urlsift.InputWarning}
    want = {str(d / "dangling"), str(d / "zstd-junk.zst"), str(d / "gz-junk.gz"), str(tmp_path / "nope"), "-"}
    assert want <= paths
    assert "http://ok.example/" in t.column("url").to_pylist()


def test_empty_inputs_give_no_batches_and_the_schema():
    assert list(urlsift.scan_files([])) == []
    t = urlsift.scan_files([]).read_all()
    assert t.num_rows == 0 and t.schema.names[:3] == ["file", "start", "end"]


def test_path_arguments(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"http://a.example/ http://b.example/\n")
    want = ["http://a.example/", "http://b.example/"]
    for arg in (p, str(p), os.fsencode(p), [p], (str(p),), (x for x in [p])):
        assert urlsift.scan_files(arg).read_all().column("url").to_pylist() == want
    with pytest.raises(TypeError):
        urlsift.scan_files(3)
    with pytest.raises(TypeError):
        urlsift.scan_files([p, 3])
    with pytest.raises(ValueError, match="errors"):
        urlsift.scan_files(p, errors="ignore")
    with pytest.raises(ValueError, match="threads"):
        urlsift.scan_files(p, threads=0)


def scan_threads() -> list[str]:
    """The names of this process's threads that scan for scan_files."""
    names = []
    for t in Path("/proc/self/task").iterdir():
        try:
            names.append((t / "comm").read_text().strip())
        except OSError:
            pass
    return [n for n in names if n.startswith("urlsift-w")]


def wait_no_scan_threads(limit: float = 10.0) -> float:
    t0 = time.monotonic()
    while scan_threads() and time.monotonic() - t0 < limit:
        time.sleep(0.01)
    return time.monotonic() - t0


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """About 48 MiB of text with a URL on every line."""
    line = b"see http://host%d.example/path/%d?q=%d and www.w%d.example/x\n"
    block = b"".join(line % (i, i, i, i) for i in range(1 << 16))
    p = tmp_path_factory.mktemp("big") / "big.txt"
    with open(p, "wb") as f:
        for _ in range(12):
            f.write(block)
    return p


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread names from /proc")
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threads_cap_the_scanning_threads(big, threads):
    wait_no_scan_threads()
    s = urlsift.scan_files([big, big, big], threads=threads)
    next(s)
    seen = scan_threads()
    # The run is blocked on the batches not yet taken: its threads are up.
    assert 1 <= len(seen) <= threads, seen
    s.close()
    assert wait_no_scan_threads() < 10 and scan_threads() == []
    with pytest.raises(StopIteration):
        next(s)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread names from /proc")
def test_early_close_and_drop_stop_the_run(big):
    n_rows = 12 * (1 << 16)
    for how in ("close", "break", "drop"):
        wait_no_scan_threads()
        t0 = time.monotonic()
        if how == "close":
            s = urlsift.scan_files(big)
            first = next(s)
            s.close()
        elif how == "break":
            with urlsift.scan_files(big) as s:
                for first in s:
                    break
        else:
            first = next(urlsift.scan_files(big, threads=1))
            gc.collect()
        assert first.num_rows == 8192
        # Stopped within a segment, not after the 48 MiB.
        assert wait_no_scan_threads() < 5 and scan_threads() == []
        assert time.monotonic() - t0 < 10
    total = sum(b.num_rows for b in urlsift.scan_files(big, threads=2))
    assert total == 2 * n_rows
