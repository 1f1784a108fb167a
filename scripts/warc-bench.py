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
Both wall time and CPU time (user + system) are reported: on a shared
machine the CPU time is the steadier figure, and the ratio uses it.
"""

import os
import re
import resource
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


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def best(fn, runs, who):
    """(best wall, best CPU, result) over `runs` runs of fn."""
    walls, cpus = [], []
    out = None
    for _ in range(runs):
        t, c = time.perf_counter(), cpu(who)
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(cpu(who) - c)
    return min(walls), min(cpus), out


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
    t, c, n = best(lambda: baseline(path), runs, resource.RUSAGE_SELF)
    print(f"{'warcio + re.findall':24} wall {t:6.2f} s  cpu {c:6.2f} s  {size / c / 1e6:6.1f} MB/s  {n} URLs")
    for b in bins:
        def run():
            # Output to /dev/null: a pipe read here would share the core.
            subprocess.run(["taskset", "-c", "0", b, path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        tb, cb, _ = best(run, runs, resource.RUSAGE_CHILDREN)
        nb = subprocess.run([b, path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout.count(b"\n")
        print(f"{os.path.basename(b):24} wall {tb:6.2f} s  cpu {cb:6.2f} s  {size / cb / 1e6:6.1f} MB/s  {nb} links  x{c / cb:.2f} (cpu)  x{t / tb:.2f} (wall)")


if __name__ == "__main__":
    main()
