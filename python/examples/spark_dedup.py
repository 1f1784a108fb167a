#!/usr/bin/env python3
"""De-duplicate the URLs of a corpus with PySpark and urlsift.

    spark_dedup.py --input DIR_OR_GLOB --output DIR [--master URL] [--mail]
                   [--engine urlsift|re]

Reads every file under DIR (recursively) or matching GLOB with Spark's
``binaryFile`` source, one row per file; extracts the URLs inside
``mapInArrow`` with :func:`urlsift.scan_arrow` (the file bytes go from
Spark's Arrow batches to Rust without a copy); takes each URL's RFC 3986
normal form (6.2.2 + 6.2.3; the URL as found where it cannot be
normalized: the key ``urlsift --unique --normalize`` compares); de-duplicates
them with ``distinct``; counts the URLs per lower-cased host; and writes
Parquet:

    OUTPUT/urls/    one row per distinct normalized URL (column ``url``)
    OUTPUT/hosts/   ``host``, ``count``: URLs found per host, as
                    ``urlsift --count-by host`` counts them

The last line printed is ``distinct N``, N being the number of lines of
``urlsift --unique --normalize INPUT`` (with ``--mail``: of ``urlsift --mail
--unique --normalize INPUT``): files are scanned as plain text unless
``--mail`` is given, as the CLI does.

``--engine re`` extracts with ``re.findall(rb'https?://[^\\s<>"]+')`` instead
(no normalization; hosts by ``urllib.parse``), for a paired timing.

Spark skips files whose name starts with ``.`` or ``_`` (the CLI scans
them), and Hadoop cannot open paths with a ``:`` in a file name (maildir's
``cur/`` names): keep such files out of the input, or the counts differ.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from typing import Iterator

URL_RE = re.compile(rb'https?://[^\s<>"]+')


OUT_SCHEMA = "url string, host string, n long"


def local_counts(url, host):
    """(url, host, n) rows: how many times each (url, host) pair occurs in
    one batch. Aggregating before the shuffle sends Spark each distinct
    pair of a batch once, not each occurrence."""
    import pyarrow as pa

    t = pa.table({"url": url, "host": host}).group_by(["url", "host"]).aggregate([([], "count_all")])
    return pa.RecordBatch.from_arrays(
        [t.column("url").combine_chunks(), t.column("host").combine_chunks(), t.column("count_all").combine_chunks()],
        names=["url", "host", "n"],
    )


def urlsift_batches(mail: bool):
    """The mapInArrow function of the urlsift engine: file contents in,
    (url, host, n) rows out."""

    def run(batches: Iterator) -> Iterator:
        import pyarrow as pa
        import pyarrow.compute as pc

        import urlsift

        for batch in batches:
            # One thread per task: Spark already runs a task per core.
            found = urlsift.scan_arrow(batch.column("content"), mail=mail, threads=1)
            key = pc.coalesce(found.column("normalized"), found.column("url"))
            # ASCII lower case, as the CLI's host keys.
            host = pc.ascii_lower(found.column("host"))
            yield local_counts(key.cast(pa.string()), host.cast(pa.string()))

    return run


def re_batches(batches: Iterator) -> Iterator:
    """The mapInArrow function of the `re` engine."""
    from urllib.parse import urlsplit

    import pyarrow as pa

    for batch in batches:
        urls, hosts = [], []
        for content in batch.column("content").to_pylist():
            if content is None:
                continue
            for u in URL_RE.findall(content):
                s = u.decode("utf-8", "replace")
                try:
                    h = urlsplit(s).hostname
                except ValueError:
                    h = None
                urls.append(s)
                hosts.append(h)
        yield local_counts(pa.array(urls, pa.string()), pa.array(hosts, pa.string()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", required=True, help="a directory (read recursively) or a glob")
    ap.add_argument("--output", required=True, help="the output directory (replaced)")
    ap.add_argument("--master", default=None, help="Spark master URL [default: local[*]]")
    ap.add_argument("--mail", action="store_true", help="read the files as mail, as urlsift --mail")
    ap.add_argument("--engine", choices=["urlsift", "re"], default="urlsift")
    args = ap.parse_args(argv)

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    t0 = time.perf_counter()
    spark = (
        SparkSession.builder.master(args.master or "local[*]")
        .appName("urlsift-dedup")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    files = (
        spark.read.format("binaryFile")
        .option("recursiveFileLookup", "true")
        .load(args.input)
        .select("content")
    )
    fn = urlsift_batches(args.mail) if args.engine == "urlsift" else re_batches
    # Scanned once, used twice (the distinct URLs, the host counts).
    found = files.mapInArrow(fn, OUT_SCHEMA).persist()
    found.select("url").distinct().write.mode("overwrite").parquet(f"{args.output}/urls")
    (
        found.where(F.col("host").isNotNull() & (F.col("host") != ""))
        .groupBy("host")
        .agg(F.sum("n").alias("count"))
        .orderBy(F.desc("count"), "host")
        .write.mode("overwrite")
        .parquet(f"{args.output}/hosts")
    )
    n = spark.read.parquet(f"{args.output}/urls").count()
    spark.stop()
    print(f"engine {args.engine}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    print(f"distinct {n}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
