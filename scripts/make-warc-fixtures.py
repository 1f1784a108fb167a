#!/usr/bin/env python3
"""Write WARC/WET fixtures for crates/warc from real HTML pages, with warcio,
and the expectations the crate's tests compare against:

  expected.json  warcio's reading of each archive: per record its offset,
                 type, target URI, record id, date, and the payload (after
                 de-chunking and content decoding) length and sha1, both as
                 warcio decodes it and as this script encoded it.
  links.json     an independent link oracle: Python's html.parser (entities
                 decoded by the standard library) and urllib.parse.urljoin,
                 per response/resource record id: [tag, attr, url] triples.

Usage (warcio in a venv: python3 -m venv V && V/bin/pip install warcio brotli zstandard):

  V/bin/python scripts/make-warc-fixtures.py fixtures OUTDIR PAGE.html...
  V/bin/python scripts/make-warc-fixtures.py corpus OUT.warc.gz [--repeat N] PAGE.html...

`fixtures` writes sample.warc, sample.warc.gz, whole.warc.gz (one gzip
member for the whole file), sample.wet, the malformed archives
(truncated.warc.gz, corrupt-member.warc.gz, lying-length.warc,
lying-length.warc.gz) and the two JSON files. `corpus` writes one large
.warc.gz of response records (for the held-out oracle and the benchmark)
and OUT.links.json beside it.
"""

import gzip
import hashlib
import html
import html.parser
import io
import json
import os
import re
import sys
import zlib
from urllib.parse import urljoin

import brotli
import zstandard
from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import BufferedReader
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter



class _Brotli:
    """warcio's brotli hook sets `unused_data` on the decompressor, which
    brotli >= 1.1 objects refuse: wrap it."""

    def __init__(self):
        self.d = brotli.Decompressor()
        self.unused_data = None

    def decompress(self, data):
        return self.d.process(data)


BufferedReader.DECOMPRESSORS["br"] = _Brotli

URL_ATTRS = {"href", "src", "action", "formaction", "cite", "poster", "background", "longdesc"}


def clean(v):
    """Strip C0 controls and spaces at both ends, drop tabs and newlines (URL parsers do)."""
    v = v.strip("".join(chr(c) for c in range(0x21)))
    return re.sub(r"[\t\n\r]", "", v)


def srcset_urls(v):
    out = []
    for cand in re.split(r",\s+|,$|^\s*,", v):
        cand = cand.strip()
        if cand:
            out.append(cand.split()[0].rstrip(","))
    return out


def refresh_url(c):
    m = re.match(r"\s*[\d.]*\s*[;,]\s*(?:url\s*=\s*)?(['\"]?)(.*)", c, re.I | re.S)
    if not m:
        return None
    u = m.group(2)
    if m.group(1):
        u = u.split(m.group(1))[0]
    return u or None


class Oracle(html.parser.HTMLParser):
    """URL attributes of a page, resolved with urljoin against <base href> or the page URL."""

    def __init__(self, doc):
        super().__init__(convert_charrefs=True)
        self.doc = doc
        self.base = None
        self.found = []

    def handle_starttag(self, tag, attrs):
        seen = set()
        d = {}
        for k, v in attrs:
            if k not in seen:
                seen.add(k)
                d[k] = v if v is not None else ""
        if tag == "base" and "href" in d:
            if self.base is None:
                self.base = urljoin(self.doc, clean(d["href"])) if self.doc else clean(d["href"])
            return
        if tag == "meta":
            if d.get("http-equiv", "").strip().lower() == "refresh" and "content" in d:
                u = refresh_url(d["content"])
                if u is not None:
                    self.found.append(("meta", "content", u))
            return
        for k, v in d.items():
            if k in URL_ATTRS:
                self.found.append((tag, k, v))
            elif k == "srcset":
                for u in srcset_urls(v):
                    self.found.append((tag, k, u))
            elif (k == "data" and tag == "object") or (k == "manifest" and tag == "html"):
                self.found.append((tag, k, v))

    handle_startendtag = handle_starttag

    def links(self):
        base = self.base or self.doc
        out = []
        for tag, attr, v in self.found:
            v = clean(v)
            u = urljoin(base, v) if base else v
            # urljoin drops an empty fragment or query; RFC 3986 5.3 (and
            # browsers) keep it: "#" -> "page.html#".
            if v.endswith("#") and not u.endswith("#"):
                u += "#"
            elif v.endswith("?") and "#" not in v and not u.endswith("?"):
                u += "?"
            out.append([tag, attr, u])
        return out


def oracle_links(page, doc):
    p = Oracle(doc)
    p.feed(page.decode("utf-8", "replace"))
    p.close()
    return p.links()


def chunked(body, size=1000):
    out = b""
    for i in range(0, len(body), size):
        part = body[i : i + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def encode(body, coding):
    if coding == "gzip":
        return gzip.compress(body, mtime=0)
    if coding == "deflate":
        return zlib.compress(body)
    if coding == "deflate-raw":
        c = zlib.compressobj(wbits=-15)
        return c.compress(body) + c.flush()
    if coding == "br":
        return brotli.compress(body)
    if coding == "zstd":
        return zstandard.ZstdCompressor().compress(body)
    return body


def response(writer, uri, body, ctype="text/html; charset=utf-8", coding=None, chunk=False, status="200 OK", extra=()):
    wire = encode(body, coding)
    headers = [("Content-Type", ctype)]
    if coding:
        headers.append(("Content-Encoding", "deflate" if coding == "deflate-raw" else coding))
    if chunk:
        headers.append(("Transfer-Encoding", "chunked"))
        wire = chunked(wire)
    else:
        headers.append(("Content-Length", str(len(wire))))
    headers.extend(extra)
    http = StatusAndHeaders(status, headers, protocol="HTTP/1.1")
    rec = writer.create_warc_record(uri, "response", payload=io.BytesIO(wire), length=len(wire), http_headers=http)
    writer.write_record(rec)
    return rec.rec_headers.get_header("WARC-Record-ID")


def request(writer, uri):
    http = StatusAndHeaders("GET / HTTP/1.1", [("Host", uri.split("/")[2]), ("User-Agent", "fixture")], is_http_request=True)
    rec = writer.create_warc_record(uri, "request", payload=io.BytesIO(b""), length=0, http_headers=http)
    writer.write_record(rec)


def text_of(page):
    """The text of a page, as a WET conversion holds it."""
    class T(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.parts = []
            self.skip = 0

        def handle_starttag(self, tag, attrs):
            self.skip += tag in ("script", "style")

        def handle_endtag(self, tag):
            self.skip -= tag in ("script", "style") and self.skip > 0

        def handle_data(self, d):
            if not self.skip and d.strip():
                self.parts.append(d.strip())

    t = T()
    t.feed(page.decode("utf-8", "replace"))
    return "\n".join(t.parts).encode()


ENTITY_PAGE = b"""<!DOCTYPE html>
<html><head><title>Entity-encoded links</title>
<meta http-equiv="refresh" content="30; URL='/refreshed?a=1&amp;b=2'">
</head><body>
<p><a href="mailto:a&#37;&#52;&#48;b.org">mail</a>
<a href="/search?q=rust&amp;lang=en&copy=1">search</a>
<a href="&#x68;ttp://ex.org/&#x7e;user/">user</a>
<a href='  ../up.html
  '>up</a>
<img src="img/a.png" srcset="img/a-1x.png 1x, img/a-2x.png 2x">
<form action="submit.cgi"><button formaction="other.cgi">go</button></form>
<blockquote cite="http://quotes.example/q?id=7&amp;x=y">q</blockquote>
<!-- <a href="http://commented.example/">not a link</a> -->
<script>var u = "http://script.example/" + x; if (a<b) {}</script>
Visit http://text.example/page?a=1&amp;b=2 or www.example.org/about.
</p></body></html>
"""


def write_sample(path, pages, gz):
    """The main fixture: every record type and body coding; returns (rec_id -> links, doc_of)."""
    oracle = {}
    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=gz, warc_version="1.1")
        info = w.create_warcinfo_record(os.path.basename(path), {"software": "make-warc-fixtures.py", "format": "WARC File Format 1.1"})
        w.write_record(info)
        codings = [(None, False), ("gzip", True), ("deflate", False), ("br", False), ("zstd", True), ("deflate-raw", False), (None, True)]
        for i, (name, page) in enumerate(pages):
            uri = "https://docs.python.org/3.11/library/" + name
            coding, chunk = codings[i % len(codings)]
            body = page
            if i == 1:
                # A page with <base href>: links resolve against it.
                body = page.replace(b"<head>", b'<head><base href="https://mirror.example/py/3.11/lib/">', 1)
            request(w, uri)
            rid = response(w, uri, body, coding=coding, chunk=chunk)
            oracle[rid] = oracle_links(body, uri)
        uri = "http://fixture.example/entities/index.html"
        rid = response(w, uri, ENTITY_PAGE, coding="gzip", chunk=True)
        oracle[rid] = oracle_links(ENTITY_PAGE, uri)
        # A redirect: 301 with Location and Link headers, no body.
        response(w, "http://docs.python.org/3.11/", b"", status="301 Moved Permanently",
                 extra=[("Location", "https://docs.python.org/3.11/"), ("Link", '<https://docs.python.org/3/>; rel="canonical"')])
        # A revisit of the first page.
        first_uri = "https://docs.python.org/3.11/library/" + pages[0][0]
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        rev = w.create_revisit_record(first_uri, digest="sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                                      refers_to_uri=first_uri, refers_to_date="2024-01-01T00:00:00Z", http_headers=http)
        w.write_record(rev)
        meta = w.create_warc_record(first_uri, "metadata", payload=io.BytesIO(b"outlink: https://not-a-page-link.example/ L a/@href\n"),
                                    warc_content_type="application/warc-fields")
        w.write_record(meta)
        # A resource record: the page itself, no HTTP.
        res = w.create_warc_record("file:///usr/share/doc/python3.11/html/library/" + pages[-1][0], "resource",
                                   payload=io.BytesIO(pages[-1][1]), warc_content_type="text/html")
        w.write_record(res)
        oracle[res.rec_headers.get_header("WARC-Record-ID")] = oracle_links(pages[-1][1], "file:///usr/share/doc/python3.11/html/library/" + pages[-1][0])
    return oracle


def write_wet(path, pages):
    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=False, warc_version="1.0")
        for name, page in pages + [("../entities.html", ENTITY_PAGE)]:
            uri = "https://docs.python.org/3.11/library/" + name
            rec = w.create_warc_record(uri, "conversion", payload=io.BytesIO(text_of(page)), warc_content_type="text/plain")
            w.write_record(rec)


def read_back(path, originals):
    """warcio's view of an archive."""
    out = []
    with open(path, "rb") as f:
        it = ArchiveIterator(f, no_record_parse=False)
        for rec in it:
            payload = rec.content_stream().read()
            rid = rec.rec_headers.get_header("WARC-Record-ID")
            row = {
                "offset": it.get_record_offset(),
                "type": rec.rec_type,
                "target_uri": rec.rec_headers.get_header("WARC-Target-URI"),
                "record_id": rid,
                "date": rec.rec_headers.get_header("WARC-Date"),
                "content_type": rec.rec_headers.get_header("Content-Type"),
                "warcio_payload_len": len(payload),
                "warcio_payload_sha1": hashlib.sha1(payload).hexdigest(),
            }
            orig = originals.get((rec.rec_type, row["target_uri"]))
            if orig is not None:
                row["payload_len"] = len(orig)
                row["payload_sha1"] = hashlib.sha1(orig).hexdigest()
            out.append(row)
    return out


def gzip_members(path):
    """Offsets of the gzip members of a .warc.gz, by warcio's reading."""
    with open(path, "rb") as f:
        it = ArchiveIterator(f)
        return [it.get_record_offset() for _ in it]


def fixtures(outdir, page_paths):
    os.makedirs(outdir, exist_ok=True)
    pages = [(os.path.basename(p), open(p, "rb").read()) for p in page_paths]
    originals = {}
    for i, (name, page) in enumerate(pages):
        body = page.replace(b"<head>", b'<head><base href="https://mirror.example/py/3.11/lib/">', 1) if i == 1 else page
        originals[("response", "https://docs.python.org/3.11/library/" + name)] = body
    originals[("response", "http://fixture.example/entities/index.html")] = ENTITY_PAGE
    links = write_sample(os.path.join(outdir, "sample.warc"), pages, False)
    links.update(write_sample(os.path.join(outdir, "sample.warc.gz"), pages, True))
    plain = open(os.path.join(outdir, "sample.warc"), "rb").read()
    with open(os.path.join(outdir, "whole.warc.gz"), "wb") as f:
        f.write(gzip.compress(plain, mtime=0))
    write_wet(os.path.join(outdir, "sample.wet"), pages)
    gz = open(os.path.join(outdir, "sample.warc.gz"), "rb").read()
    members = gzip_members(os.path.join(outdir, "sample.warc.gz"))
    # Truncated: cut in the middle of the last member.
    last = members[-1]
    open(os.path.join(outdir, "truncated.warc.gz"), "wb").write(gz[: last + (len(gz) - last) // 2])
    # Corrupt member: flip bytes inside the deflate data of the fourth member.
    m = members[3]
    bad = bytearray(gz)
    for k in range(m + 30, m + 60):
        bad[k] ^= 0x5A
    open(os.path.join(outdir, "corrupt-member.warc.gz"), "wb").write(bytes(bad))
    # Lying Content-Length: the third record's header claims 10 bytes more
    # (plain: it swallows the start of the next record), the fifth's 100 fewer.
    lying = bytearray()
    recs = [r for r in re.split(rb"(?=WARC/1\.1\r\n)", plain) if r]
    for i, r in enumerate(recs):
        delta = 10 if i == 2 else -100 if i == 4 else 0
        if delta:
            r = re.sub(rb"Content-Length: (\d+)", lambda mm: b"Content-Length: %d" % (int(mm.group(1)) + delta), r, count=1)
        lying += r
    open(os.path.join(outdir, "lying-length.warc"), "wb").write(bytes(lying))
    with open(os.path.join(outdir, "lying-length.warc.gz"), "wb") as f:
        for r in re.split(rb"(?=WARC/1\.1\r\n)", bytes(lying)):
            if r:
                f.write(gzip.compress(r, mtime=0))
    expected = {}
    for name in ["sample.warc", "sample.warc.gz", "sample.wet"]:
        expected[name] = read_back(os.path.join(outdir, name), originals)
    # warcio refuses a whole-file gzip (it cannot seek into it): the records
    # are those of sample.warc, all in the member at offset 0.
    expected["whole.warc.gz"] = [dict(r, offset=0) for r in expected["sample.warc"]]
    expected["members"] = {"sample.warc.gz": members}
    json.dump(expected, open(os.path.join(outdir, "expected.json"), "w"), indent=1, sort_keys=True)
    json.dump(links, open(os.path.join(outdir, "links.json"), "w"), sort_keys=True, separators=(",", ":"))
    # The script checks itself: warcio decodes what it can as this script encoded it.
    for name, rows in expected.items():
        if name == "members":
            continue
        for row in rows:
            if "payload_sha1" in row and row["warcio_payload_sha1"] != row["payload_sha1"]:
                print(f"note: {name} @{row['offset']}: warcio leaves this payload encoded", file=sys.stderr)


def corpus(out, page_paths, repeat):
    """One large .warc.gz of real pages (gzip member per record; bodies
    identity, gzip or chunked in turn) and the oracle's links beside it."""
    links = {}
    n = 0
    with open(out, "wb") as f:
        w = WARCWriter(f, gzip=True, warc_version="1.1")
        for r in range(repeat):
            for p in page_paths:
                page = open(p, "rb").read()
                uri = "https://docs.example/%d%s" % (r, os.path.abspath(p))
                coding, chunk = [(None, False), ("gzip", False), (None, True)][n % 3]
                rid = response(w, uri, page, coding=coding, chunk=chunk)
                if r == 0:
                    links[rid] = oracle_links(page, uri)
                n += 1
    json.dump(links, open(out + ".links.json", "w"))
    print(f"{out}: {n} records, {os.path.getsize(out)} bytes", file=sys.stderr)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("fixtures", "corpus"):
        sys.exit(__doc__)
    if sys.argv[1] == "fixtures":
        fixtures(sys.argv[2], sys.argv[3:])
    else:
        args = sys.argv[3:]
        repeat = 1
        if args[:1] == ["--repeat"]:
            repeat = int(args[1])
            args = args[2:]
        corpus(sys.argv[2], args, repeat)


if __name__ == "__main__":
    main()
