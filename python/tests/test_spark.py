"""The PySpark job in local[2] mode against the CLI's counts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

JOB = ROOT / "python/examples/spark_dedup.py"


def spark_available() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (java not on PATH, JAVA_HOME unset)"
    return None


why = spark_available()
if why and os.environ.get("URLSIFT_REQUIRE_SPARK"):
    raise RuntimeError(f"URLSIFT_REQUIRE_SPARK is set but {why}")
pytestmark = pytest.mark.skipif(why is not None, reason=why or "")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A small tree of text and mail: nested directories, no names Spark
    or Hadoop would skip or refuse (see the job's docs)."""
    d = tmp_path_factory.mktemp("corpus")
    (d / "a/b").mkdir(parents=True)
    shutil.copy(ROOT / "datasets/sample.txt", d / "a/sample.txt")
    shutil.copy(ROOT / "datasets/sample.mbox", d / "a/b/sample.mbox")
    shutil.copy(ROOT / "crates/core/tests/data/peers/linkify-it/links.txt", d / "links.txt")
    for p in sorted((ROOT / "tests/data/mail/own").glob("*.eml")):
        shutil.copy(p, d / "a/b" / p.name)
    return d


def run_job(corpus: Path, out: Path, *extra: str) -> str:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    r = subprocess.run(
        [sys.executable, str(JOB), "--input", str(corpus), "--output", str(out), "--master", "local[2]", *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    return r.stdout.strip().splitlines()[-1]


def cli_hosts(cli, *args) -> dict[str, int]:
    out = run_cli(cli, "--count-by", "host", *args).stdout.decode()
    rows = {}
    for line in out.splitlines():
        n, host = line.split(maxsplit=1)
        rows[host] = int(n)
    return rows


@pytest.mark.parametrize("mail", [False, True], ids=["plain", "mail"])
def test_spark_job_matches_cli(cli, corpus, tmp_path, mail):
    import pyarrow.parquet as pq

    flag = ["--mail"] if mail else []
    last = run_job(corpus, tmp_path / "out", *flag)
    # (-I: no file names, the count is the same.)
    want = run_cli(cli, *flag, "-I", "--unique", "--normalize", corpus).stdout.splitlines()
    assert len(want) > 50
    assert last == f"distinct {len(want)}"
    urls = pq.read_table(tmp_path / "out/urls").column("url").to_pylist()
    assert sorted(urls) == sorted(w.decode() for w in want)
    hosts = pq.read_table(tmp_path / "out/hosts").to_pydict()
    assert dict(zip(hosts["host"], hosts["count"])) == cli_hosts(cli, *flag, corpus)


def test_spark_job_glob_and_re_engine(corpus, tmp_path):
    # The re engine is for timing; it runs and counts something.
    last = run_job(Path(f"{corpus}/a/*.txt"), tmp_path / "out", "--engine", "re")
    assert last.startswith("distinct ") and int(last.split()[1]) > 10


# Real archives other tools wrote (WARC 1.0, ClueWeb09's WARC/0.18, LZ4
# frames, ARC, a chunked IA capture): each read whole by the CLI.
ARCHIVES = [
    "sample.warc.gz",
    "others/jwarc-cc.warc.gz",
    "others/resiliparse-clueweb-quirk.warc.gz",
    "others/resiliparse-warcfile.warc.lz4",
    "others/warcio-example-iana.org-chunked.warc",
    "others/warcio-example.arc.gz",
    "others/warcio-post-test.warc.gz",
]


@pytest.fixture(scope="module")
def archives(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("archives")
    for a in ARCHIVES:
        shutil.copy(ROOT / "crates/warc/tests/data" / a, d / Path(a).name)
    return d


def test_spark_job_on_web_archives_matches_cli(cli, archives, tmp_path):
    import pyarrow.parquet as pq

    last = run_job(archives, tmp_path / "out")
    want = run_cli(cli, "-I", "--unique", "--normalize", archives).stdout.splitlines()
    assert len(want) > 1000
    assert last == f"distinct {len(want)}"
    urls = pq.read_table(tmp_path / "out/urls").column("url").to_pylist()
    assert sorted(urls) == sorted(w.decode() for w in want)
    hosts = pq.read_table(tmp_path / "out/hosts").to_pydict()
    assert dict(zip(hosts["host"], hosts["count"])) == cli_hosts(cli, archives)



def documentation_pages(limit: int) -> tuple[Path, list[Path]] | None:
    """`limit` real HTML pages nobody here wrote: the Rust toolchain's own
    documentation (rustup installs it with the toolchain), spread evenly
    over its tree; None where it is not installed."""
    try:
        sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    root = Path(sysroot.strip()) / "share/doc/rust/html"
    pages = sorted(p for p in root.rglob("*.html") if 4096 < p.stat().st_size < 40960)
    if len(pages) < limit:
        return None
    step = len(pages) // limit
    return root, pages[::step][:limit]


def write_warc_gz(path: Path, root: Path, pages: list[Path]) -> None:
    """A WARC/1.0 file of response records, one gzip member per record, as
    crawlers write them: each page with its HTTP header and target URI."""
    import gzip
    import hashlib
    import uuid

    with open(path, "wb") as out:
        for i, p in enumerate(pages):
            body = p.read_bytes()
            http = (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body)
            ) + body
            uri = "https://doc.rust-lang.org/" + p.relative_to(root).as_posix()
            rid = uuid.UUID(hashlib.md5(uri.encode()).hexdigest())
            head = (
                "WARC/1.0\r\nWARC-Type: response\r\n"
                f"WARC-Record-ID: <urn:uuid:{rid}>\r\n"
                f"WARC-Date: 2026-01-01T00:00:{i % 60:02d}Z\r\n"
                f"WARC-Target-URI: {uri}\r\n"
                "Content-Type: application/http; msgtype=response\r\n"
                f"Content-Length: {len(http)}\r\n\r\n"
            ).encode()
            out.write(gzip.compress(head + http + b"\r\n\r\n", compresslevel=1, mtime=0))


PAGES = 3000


@pytest.fixture(scope="module")
def crawl(tmp_path_factory) -> Path:
    """Three .warc.gz files of 1,000 real documentation pages each."""
    found = documentation_pages(PAGES)
    if found is None:
        pytest.skip(f"no {PAGES} real HTML pages on this machine (the Rust documentation is not installed)")
    root, pages = found
    d = tmp_path_factory.mktemp("crawl")
    for k in range(3):
        write_warc_gz(d / f"crawl-{k:05d}.warc.gz", root, pages[k::3])
    return d


def test_spark_job_on_thousands_of_pages_matches_cli(cli, crawl, tmp_path):
    import pyarrow.parquet as pq

    last = run_job(crawl, tmp_path / "out")
    want = run_cli(cli, "-I", "--unique", "--normalize", crawl).stdout.splitlines()
    assert len(want) > 10_000, len(want)
    assert last == f"distinct {len(want)}"
    urls = pq.read_table(tmp_path / "out/urls").column("url").to_pylist()
    assert sorted(urls) == sorted(w.decode() for w in want)
    hosts = pq.read_table(tmp_path / "out/hosts").to_pydict()
    assert dict(zip(hosts["host"], hosts["count"])) == cli_hosts(cli, crawl)


def test_spark_reads_urlsift_parquet_as_bigint(cli, crawl, tmp_path, capsys):
    from pyspark.sql import SparkSession

    out = tmp_path / "links.parquet"
    run_cli(cli, "--format", "parquet", "--output", out, crawl / "crawl-00000.warc.gz")
    spark = SparkSession.builder.master("local[1]").appName("urlsift-schema").getOrCreate()
    try:
        df = spark.read.parquet(str(out))
        schema = df._jdf.schema().treeString() + "\nSQL types: " + df.schema.simpleString()
        types = dict(df.dtypes)
        n = df.count()
    finally:
        spark.stop()
    with capsys.disabled():
        print("\nSpark's printSchema() of urlsift --format parquet:\n" + schema)
    for col in ("start", "end", "line", "warc_offset"):
        assert types[col] == "bigint", (col, types[col])
    assert n > 1000
