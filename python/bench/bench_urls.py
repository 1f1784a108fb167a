#!/usr/bin/env python3
"""Throughput of urlsift's Python API against the CLI and Python's `re`.

    python bench/bench_urls.py [FILE] [--repeat N] [--spark-dir DIR]

FILE defaults to datasets/generated/mixed-256M.txt at the repository root.
Prints, best of N runs each (wall clock, and CPU time: the CLI's own, the
API's of this process):

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


def best(fn, repeat: int) -> tuple[float, float, object]:
    """(best wall seconds, CPU seconds of that run, result)."""
    out = None
    runs = []
    for _ in range(repeat):
        out = None
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        runs.append((time.perf_counter() - w0, time.process_time() - c0))
    w, c = min(runs)
    return w, c, out


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
    args = ap.parse_args()

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

    rows = []
    w, _, _ = best(run_cli, args.repeat)
    # The child's CPU time, best run (the subprocess's, not this process's).
    rows.append(("cli -j1", w, min(cli_cpu), count))
    for name, fn in [
        ("urls threads=1", lambda: urlsift.urls(data, threads=1)),
        ("urls default", lambda: urlsift.urls(data)),
        ("re.findall", lambda: URL_RE.findall(data)),
    ]:
        w, c, out = best(fn, args.repeat)
        rows.append((name, w, c, len(out)))
        del out

    print(f"{path.name}: {mib:.0f} MiB, {count} URLs (CLI), best of {args.repeat}, {os.cpu_count()} cores")
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
