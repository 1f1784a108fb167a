#!/usr/bin/env python3
"""Throughput of urlsift's Python API against the CLI and Python's `re`.

    python bench/bench_urls.py [FILE] [--repeat N] [--spark-dir DIR]
    python bench/bench_urls.py --make-distinct OUT.txt [--size MIB]

FILE defaults to datasets/generated/mixed-256M.txt at the repository root.
--make-distinct writes (then times) text in which every URL is distinct:
short lines of words around one https URL each, about 110 bytes a line,
the same bytes on every run (the case where making the `str` objects
costs most).
Runs N rounds, each timing every variant once, in turn (paired: a load
that comes and goes on a shared machine hits all of them alike), and
prints the best round of each (wall clock, and CPU time: the CLI's own,
the API's of this process):

    cli -j1        urlsift -j1 FILE > /dev/null  (URLSIFT_BIN or target/release)
    urls threads=1 urlsift.urls(data, threads=1)
    urls default   urlsift.urls(data)
    re.findall     re.findall(rb'https?://[^\\s<>"]+', data)

and the ratios the project tracks: urls(threads=1) / cli -j1 throughput
(target >= 0.8) and urls(threads=1) / re.findall (target >= 2).

With --spark-dir DIR, also times examples/spark_dedup.py on DIR with the
urlsift engine and with --engine re (local[*]), one run each.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import urlsift

ROOT = Path(__file__).resolve().parents[2]
URL_RE = re.compile(rb'https?://[^\s<>"]+')


def timed(fn) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds, result) of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def make_distinct(out: Path, mib: int) -> None:
    """Write about MIB MiB of lines with one URL each, all distinct."""
    rng = random.Random(7)
    words = "the of and to in is that for it as with was on be by this are from at or an have not".split()
    size, i = 0, 0
    with open(out, "wb") as f:
        while size < mib << 20:
            lines = []
            for _ in range(10000):
                w = " ".join(rng.choice(words) for _ in range(6))
                lines.append(f"{w} https://host{i % 99991}.example.com/articles/{i}/view?id={i * 7919} {w}\n")
                i += 1
            chunk = "".join(lines).encode()
            f.write(chunk)
            size += len(chunk)


def cli_bin() -> str:
    b = os.environ.get("URLSIFT_BIN") or str(ROOT / "target/release/urlsift")
    if not Path(b).is_file():
        sys.exit(f"no CLI at {b}: cargo build --release, or set URLSIFT_BIN")
    return b


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default=str(ROOT / "datasets/generated/mixed-256M.txt"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--spark-dir", default=None)
    ap.add_argument("--make-distinct", metavar="OUT", default=None)
    ap.add_argument("--size", type=int, default=256, help="MiB for --make-distinct")
    args = ap.parse_args()
    if args.make_distinct:
        make_distinct(Path(args.make_distinct), args.size)
        args.file = args.make_distinct

    path = Path(args.file)
    data = path.read_bytes()
    mib = len(data) / (1 << 20)
    cli = cli_bin()
    count = int(subprocess.run([cli, "-c", path], capture_output=True, check=True).stdout)

    cli_cpu = []

    def run_cli():
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([cli, "-j1", path], stdout=subprocess.DEVNULL, check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cli_cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)

    variants = [
        ("cli -j1", run_cli),
        ("urls threads=1", lambda: urlsift.urls(data, threads=1)),
        ("urls default", lambda: urlsift.urls(data)),
        ("re.findall", lambda: URL_RE.findall(data)),
    ]
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in variants}
    counts: dict[str, int] = {}
    for _ in range(args.repeat):
        for name, fn in variants:
            w, c, out = timed(fn)
            if name == "cli -j1":
                # The child's CPU time (the subprocess's, not this process's).
                c = cli_cpu[-1]
            else:
                counts[name] = len(out)
            del out
            runs[name].append((w, c))
    counts["cli -j1"] = count
    rows = [(name, *min(runs[name]), counts[name]) for name, _ in variants]

    print(f"{path.name}: {mib:.0f} MiB, {count} URLs (CLI), best of {args.repeat} alternating rounds, {os.cpu_count()} cores")
    for name, w, c, n in rows:
        cpu = f"  cpu {c:.3f} s" if c is not None else ""
        print(f"  {name:<15} {w:7.3f} s  {mib / w:7.0f} MiB/s  {n:>9} URLs{cpu}")
    t = {name: w for name, w, _, _ in rows}
    assert rows[1][3] == count, "urls() and the CLI disagree on the count"
    print(f"  urls(threads=1) vs cli -j1: {t['cli -j1'] / t['urls threads=1']:.2f}x throughput (target >= 0.8)")
    c = {name: cpu for name, _, cpu, _ in rows}
    print(f"  urls(threads=1) vs cli -j1 per CPU second: {c['cli -j1'] / c['urls threads=1']:.2f}x")
    print(f"  urls(threads=1) vs re.findall: {t['re.findall'] / t['urls threads=1']:.2f}x as fast (target >= 2)")

    if args.spark_dir:
        job = ROOT / "python/examples/spark_dedup.py"
        env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
        for engine in ("urlsift", "re"):
            with tempfile.TemporaryDirectory() as out:
                t0 = time.perf_counter()
                r = subprocess.run(
                    [sys.executable, job, "--input", args.spark_dir, "--output", out, "--engine", engine],
                    capture_output=True, text=True, env=env, check=True,
                )
                dt = time.perf_counter() - t0
            print(f"  spark_dedup --engine {engine:<8} {dt:6.1f} s  ({r.stdout.strip().splitlines()[-1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
