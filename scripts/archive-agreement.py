#!/usr/bin/env python3
"""Score urlsift's links of web archives against an independent reader.

The reader: warcio (WARC 0.17-1.1 and ARC, plain or gzip; LZ4 frames
decoded with the lz4 package first), its de-chunked and decoded payloads,
Python's html.parser and urljoin (the oracle of scripts/make-warc-fixtures.py),
and the Location, Content-Location and Link headers. A link is the pair
(the record's target URI, the absolute URL); urlsift's attribute and header
links (`--format json`) are compared with the oracle's as multisets, per
file and over all of them: precision = shared / urlsift's, recall =
shared / the oracle's. Text URLs are not scored (the oracle has no text
rules), but a text URL from a payload whose first bytes are binary
(WHATWG's binary data bytes) is counted as junk.

Usage (a venv: python3 -m venv V && V/bin/pip install warcio brotli zstandard lz4):

  V/bin/python scripts/archive-agreement.py [--bin target/debug/urlsift] [-v] FILE...

With no FILE, every archive in crates/warc/tests/data/others. Exits 1 when
precision or recall is under 0.99, or junk was found.
"""

import argparse
import collections
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import zlib
from urllib.parse import urljoin

from warcio.archiveiterator import ArchiveIterator

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location("fixtures", os.path.join(HERE, "make-warc-fixtures.py"))
fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fixtures)

BINARY = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")


def open_archive(path):
    data = open(path, "rb").read()
    if data.startswith(b"\x04\x22\x4d\x18"):
        import lz4.frame

        out = io.BytesIO()
        # One frame per record, back to back.
        while data:
            d = lz4.frame.LZ4FrameDecompressor()
            out.write(d.decompress(data))
            data = d.unused_data
        data = out.getvalue()
    return io.BytesIO(data)


HTML_START = re.compile(
    rb"\s*<(!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[\s>]",
    re.I,
)


def is_html(ctype, body):
    """HTML by type, or an untyped, text/plain or octet-stream body that
    starts as WHATWG's HTML patterns say."""
    essence = ctype.split(";")[0].strip().lower()
    if "html" in essence:
        return True
    return essence in ("", "text/plain", "application/octet-stream", "unknown/unknown") and bool(
        HTML_START.match(body[:1445].lstrip(b"\xef\xbb\xbf"))
    )


def header_links(rec, doc):
    out = []
    h = rec.http_headers
    if h is None:
        return out
    for name, value in h.headers:
        n = name.lower()
        if n in ("location", "content-location"):
            out.append(value.strip())
        elif n == "link":
            out.extend(re.findall(r"<([^>]*)>", value))
    return [urljoin(doc, fixtures.clean(u)) if doc else u for u in out]


def doc_key(doc):
    """A target URI as a key: warcio writes the spaces of one as %20."""
    return doc.replace(" ", "%20")


def whole_gzip(path):
    """A file that is one gzip stream (warcio refuses it), decoded as far
    as it inflates."""
    d = zlib.decompressobj(31)
    data = open(path, "rb").read()
    out = []
    while data:
        try:
            out.append(d.decompress(data))
        except zlib.error:
            break
        data = d.unused_data
        if data:
            d = zlib.decompressobj(31)
    return io.BytesIO(b"".join(out))


def oracle(path, whole=False):
    """(target, url) pairs, and the targets whose payload is binary."""
    links = collections.Counter()
    binary = set()
    notes = []
    try:
        stream = whole_gzip(path) if whole else open_archive(path)
        for rec in ArchiveIterator(stream, arc2warc=True):
            if rec.rec_type not in ("response", "resource"):
                continue
            doc = rec.rec_headers.get_header("WARC-Target-URI") or ""
            doc = doc.strip("<>")
            key = doc_key(doc)
            for u in header_links(rec, doc):
                links[(key, u)] += 1
            try:
                body = rec.content_stream().read()
            except Exception as e:  # a broken coding: the raw payload
                notes.append(f"{doc}: {e!r}")
                body = b""
            ctype = ""
            if rec.http_headers is not None:
                ctype = rec.http_headers.get_header("Content-Type") or ""
            elif rec.rec_type == "resource":
                ctype = rec.rec_headers.get_header("Content-Type") or ""
            if BINARY.search(body[:1445]):
                binary.add(key)
            if is_html(ctype, body):
                for _tag, _attr, u in fixtures.oracle_links(body, doc or None):
                    links[(key, u)] += 1
    except Exception as e:  # a truncated or corrupt file: what was read counts
        if "non-chunked gzip" in str(e) and not whole:
            return oracle(path, whole=True)
        notes.append(repr(e))
    return links, binary, notes


def urlsift(binary_path, path):
    p = subprocess.run([binary_path, "-s", "--format", "json", path], capture_output=True)
    links = collections.Counter()
    text = []
    for line in p.stdout.splitlines():
        r = json.loads(line)
        key = (doc_key(r.get("warc_target_uri") or ""), r["url"])
        if r.get("source") in ("attribute", "header"):
            links[key] += 1
        else:
            text.append(key)
    return links, text, p.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug", "urlsift"))
    ap.add_argument("-v", action="store_true", help="list the links that differ")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files
    if not files:
        d = os.path.join(ROOT, "crates", "warc", "tests", "data", "others")
        files = sorted(
            os.path.join(d, f)
            for f in os.listdir(d)
            if not f.startswith(("LICENSE", "README"))
        )
    tot = collections.Counter()
    print(f"{'file':48} {'oracle':>7} {'urlsift':>7} {'shared':>7} {'junk':>5}")
    for f in files:
        want, binary, notes = oracle(f)
        got, text, code = urlsift(a.bin, f)
        shared = sum((want & got).values())
        junk = sum(1 for doc, _ in text if doc in binary)
        tot["oracle"] += sum(want.values())
        tot["urlsift"] += sum(got.values())
        tot["shared"] += shared
        tot["junk"] += junk
        print(f"{os.path.basename(f):48} {sum(want.values()):7} {sum(got.values()):7} {shared:7} {junk:5}")
        if a.v:
            for k in sorted((want - got).elements()):
                print("   only oracle:", k)
            for k in sorted((got - want).elements()):
                print("   only urlsift:", k)
            for n in notes:
                print("   oracle note:", n)
    p = tot["shared"] / tot["urlsift"] if tot["urlsift"] else 1.0
    r = tot["shared"] / tot["oracle"] if tot["oracle"] else 1.0
    print(f"{len(files)} files: oracle {tot['oracle']}, urlsift {tot['urlsift']}, shared {tot['shared']}: "
          f"precision {p:.4f}, recall {r:.4f}, junk text URLs {tot['junk']}")
    return 0 if p >= 0.99 and r >= 0.99 and tot["junk"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
