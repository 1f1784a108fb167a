#!/usr/bin/env python3
"""One core of crates/warc's `warc_links` example against warcio + a regex.

The baseline reads every response record with warcio, decodes its payload
(de-chunked, content-decoded: `content_stream()`) and runs
re.findall(rb'https?://[^\\s<>"\\']+') over it. `warc_links` does more (HTML
tokenised, entities decoded, attributes resolved, text delimited by the
Appendix C rules), so the comparison is in its disfavour.

Usage (warcio in a venv: python3 -m venv V && V/bin/pip install warcio):

  cargo build --release --example warc_links   (in crates/warc)
  V/bin/python scripts/warc-bench.py FILE.warc.gz [BIN...] [--runs N]

Each BIN (default crates/warc/target/release/examples/warc_links) runs
pinned to one core (taskset -c 0); the best of N runs (default 3) counts.
"""

import os
import re
import subprocess
import sys
import time

from warcio.archiveiterator import ArchiveIterator

URL = re.compile(rb"https?://[^\s<>\"']+")


def baseline(path):
    n = 0
    with open(path, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type == "response":
                n += len(URL.findall(rec.content_stream().read()))
    return n


def best(fn, runs):
    times = []
    out = None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    args = sys.argv[1:]
    runs = 3
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    if not args:
        sys.exit(__doc__)
    path, bins = args[0], args[1:] or [os.path.join(os.path.dirname(__file__), "..", "crates/warc/target/release/examples/warc_links")]
    size = os.path.getsize(path)
    os.sched_setaffinity(0, {0})
    t, n = best(lambda: baseline(path), runs)
    print(f"{'warcio + re.findall':40} {t:8.2f} s {size / t / 1e6:8.1f} MB/s  {n} URLs")
    for b in bins:
        def run():
            out = subprocess.run(["taskset", "-c", "0", b, path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
            return out.stdout.count(b"\n")
        tb, nb = best(run, runs)
        print(f"{os.path.basename(b):40} {tb:8.2f} s {size / tb / 1e6:8.1f} MB/s  {nb} links  x{t / tb:.2f}")


if __name__ == "__main__":
    main()
