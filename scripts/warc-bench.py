#!/usr/bin/env python3
"""One core of crates/warc's `warc_links` example against warcio + a regex.

The baseline reads every response record with warcio, decodes its payload
(de-chunked, content-decoded: `content_stream()`) and runs
re.findall(rb'https?://[^\\s<>"\\']+') over it. `warc_links` does more (HTML
tokenised, entities decoded, attributes resolved, text delimited by the
Appendix C rules), so the comparison is in its disfavour.

Usage (warcio in a venv: python3 -m venv V && V/bin/pip install warcio):

  cargo build --release --example warc_links -p urlsift-warc
  V/bin/python scripts/warc-bench.py FILE.warc.gz [BIN...] [--runs N] [--cores N]

Each BIN (default target/release/examples/warc_links) is a command, with
arguments if quoted ("target/release/urlsift -j1"), run with FILE as its
last argument and its output to /dev/null, pinned to the first N cores
(taskset, default 1; warcio always runs on one). Runs alternate (warcio,
then each BIN, N times, default 3) and the best of each counts. Both wall
time and CPU time (user + system) are reported: on a shared machine the CPU
time is the steadier figure for one core, and the first ratio uses it; with
more cores, the wall time is what they save.

  V/bin/python scripts/warc-bench.py crawl.warc.gz "target/release/urlsift -j1" --runs 5

With --fastwarc, a second baseline runs in the same rounds (pip install
fastwarc selectolax): FastWARC reads the response records, the body's
gzip/deflate content coding is undone with zlib, selectolax (Lexbor)
parses each page and every href/src attribute is resolved with
urllib.parse.urljoin against <base href> or the target URI.

  V/bin/python scripts/warc-bench.py crawl.warc.gz "target/release/urlsift -j1" --fastwarc
  V/bin/python scripts/warc-bench.py crawl.warc.gz "target/release/urlsift -j1" \
      "target/release/urlsift -j2" --cores 2 --runs 5   (needs two idle cores)

With --bare, a third baseline runs in the same rounds: FastWARC's bare
record loop (every record read, its HTTP head parsed as FastWARC does by
default, its body read whole; nothing parsed), the floor a reader in
Python can reach, and each BIN's CPU time is given as a multiple of it.
crates/warc's `warc_records` example is urlsift's own bare loop.

  cargo build --release --example warc_records -p urlsift-warc
  V/bin/python scripts/warc-bench.py crawl.warc.gz "target/release/urlsift -j1" \
      target/release/examples/warc_records --bare --runs 5
"""

import os
import re
import resource
import shlex
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


def fastwarc_baseline(path):
    import zlib
    from urllib.parse import urljoin

    from fastwarc.warc import ArchiveIterator as FastIterator, WarcRecordType
    from selectolax.lexbor import LexborHTMLParser as HTMLParser

    n = 0
    with open(path, "rb") as f:
        for rec in FastIterator(f, record_types=WarcRecordType.response, parse_http=True):
            body = rec.reader.read()
            headers = rec.http_headers
            coding = (headers.get("Content-Encoding") or "").lower() if headers else ""
            if "chunked" in ((headers.get("Transfer-Encoding") or "").lower() if headers else ""):
                body = dechunk(body)
            if coding in ("gzip", "x-gzip", "deflate"):
                try:
                    body = zlib.decompress(body, 47 if coding != "deflate" else 15)
                except zlib.error:
                    pass
            doc = rec.headers.get("WARC-Target-URI") or ""
            tree = HTMLParser(body)
            base = doc
            b = tree.css_first("base[href]")
            if b is not None:
                base = urljoin(doc, b.attributes.get("href") or "")
            for node in tree.css("[href],[src]"):
                for a in ("href", "src"):
                    v = node.attributes.get(a)
                    if v is not None:
                        urljoin(base, v.strip())
                        n += 1
    return n


def fastwarc_bare(path):
    from fastwarc.warc import ArchiveIterator as FastIterator

    n = 0
    with open(path, "rb") as f:
        for rec in FastIterator(f):
            n += len(rec.reader.read())
    return n


def dechunk(body):
    out, i = [], 0
    while True:
        j = body.find(b"\r\n", i)
        if j < 0:
            break
        try:
            size = int(body[i:j].split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out.append(body[j + 2 : j + 2 + size])
        i = j + 2 + size + 2
    return b"".join(out)


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def timed(fn, who):
    """(wall, CPU, result) of one call of fn."""
    t, c = time.perf_counter(), cpu(who)
    out = fn()
    return time.perf_counter() - t, cpu(who) - c, out


def main():
    args = sys.argv[1:]
    runs, cores = 3, 1
    fast = "--fastwarc" in args
    if fast:
        args.remove("--fastwarc")
    bare = "--bare" in args
    if bare:
        args.remove("--bare")
    for opt in ("--runs", "--cores"):
        if opt in args:
            i = args.index(opt)
            if opt == "--runs":
                runs = int(args[i + 1])
            else:
                cores = int(args[i + 1])
            del args[i : i + 2]
    if not args:
        sys.exit(__doc__)
    root = os.path.join(os.path.dirname(__file__), "..")
    path, bins = args[0], args[1:] or [os.path.join(root, "target/release/examples/warc_links")]
    size = os.path.getsize(path)
    pin = ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:cores])
    mine = os.sched_getaffinity(0)
    cmds = [shlex.split(b) + [path] for b in bins]

    def run(cmd):
        # Output to /dev/null: a pipe read here would share the core.
        subprocess.run(["taskset", "-c", pin] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)

    def one_core(fn):
        os.sched_setaffinity(0, {int(pin.split(",")[0])})
        try:
            return fn(path)
        finally:
            os.sched_setaffinity(0, mine)

    best = [[float("inf"), float("inf")] for _ in range(len(cmds) + 1)]
    fbest = [float("inf"), float("inf")]
    bbest = [float("inf"), float("inf")]
    n = fn_ = bn = 0
    for _ in range(runs):
        t, c, n = timed(lambda: one_core(baseline), resource.RUSAGE_SELF)
        best[0] = [min(best[0][0], t), min(best[0][1], c)]
        if fast:
            t, c, fn_ = timed(lambda: one_core(fastwarc_baseline), resource.RUSAGE_SELF)
            fbest = [min(fbest[0], t), min(fbest[1], c)]
        if bare:
            t, c, bn = timed(lambda: one_core(fastwarc_bare), resource.RUSAGE_SELF)
            bbest = [min(bbest[0], t), min(bbest[1], c)]
        for k, cmd in enumerate(cmds, 1):
            t, c, _ = timed(lambda cmd=cmd: run(cmd), resource.RUSAGE_CHILDREN)
            best[k] = [min(best[k][0], t), min(best[k][1], c)]
    t, c = best[0]
    print(f"{'warcio + re.findall':28} wall {t:6.2f} s  cpu {c:6.2f} s  {size / c / 1e6:6.1f} MB/s  {n} URLs")
    if fast:
        print(f"{'fastwarc+selectolax+urljoin':28} wall {fbest[0]:6.2f} s  cpu {fbest[1]:6.2f} s  {size / fbest[1] / 1e6:6.1f} MB/s  {fn_} links")
    if bare:
        print(f"{'fastwarc bare record loop':28} wall {bbest[0]:6.2f} s  cpu {bbest[1]:6.2f} s  {size / bbest[1] / 1e6:6.1f} MB/s  {bn} body bytes")
    for cmd, b, (tb, cb) in zip(cmds, bins, best[1:]):
        nb = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout.count(b"\n")
        name = " ".join([os.path.basename(shlex.split(b)[0])] + shlex.split(b)[1:])
        vs_fast = f"  x{fbest[1] / cb:.2f} vs fastwarc (cpu)" if fast else ""
        if bare:
            vs_fast += f"  {cb / bbest[1]:.2f}x the bare loop's cpu"
        print(f"{name:28} wall {tb:6.2f} s  cpu {cb:6.2f} s  {size / cb / 1e6:6.1f} MB/s  {nb} links  x{c / cb:.2f} (cpu)  x{t / tb:.2f} (wall){vs_fast}")


if __name__ == "__main__":
    main()
