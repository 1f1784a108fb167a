#!/usr/bin/env python3
"""Score urlsift's default reading of documents against labels.

    doc-agreement.py label --base-map MAP DIR > LABELS.json
    doc-agreement.py score [--urlsift BIN] --base-map MAP DIR LABELS.json

A document set is a directory of real files: HTML pages, reStructuredText
and plain text. ``label`` writes a first set of labels by an independent
reading (the standard library's ``html.parser`` for HTML, with
``urllib.parse.urljoin`` for the URL attributes, and a regular expression
with RFC 3986 Appendix C's delimiting rules for text); a person then reads
each document and corrects the labels by hand (``score`` prints every
disagreement, to make that review quick). ``score`` runs ``urlsift
--format json`` on each file (``--base`` from the map, as the page's own
address) and prints precision, recall and F1 over the multiset of
(file, URL) pairs.

MAP is a JSON object of file name to base URI (the page's address); files
without one are read without ``--base``.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

# The URL attributes of HTML (the HTML Standard's index of attributes whose
# value is a valid URL, or a list of them).
URL_ATTRS = {
    "href", "src", "action", "formaction", "cite", "poster", "background",
    "longdesc", "manifest", "ping", "xlink:href", "itemid", "data",
}
SCHEMES = r"(?:https?|ftp|ftps|sftp|file|mailto|news|nntp|git|ssh|svn|irc|ircs|telnet|ldap|gopher|wais|rsync|xmpp|sip|tel)"
TEXT_URL = re.compile(
    rb"(?:" + SCHEMES.encode() + rb":(?://)?|\b[a-z][a-z0-9+.-]*://|www\.)[^\s<>\"'`{}|\\^\x00-\x1f\x7f]+",
    re.IGNORECASE,
)
TRAIL = b".,;:!?*'"
PAIRS = {b")"[0]: b"("[0], b"]"[0]: b"["[0], b"}"[0]: b"{"[0]}


def trim(u: bytes) -> bytes:
    """Appendix C: trailing punctuation is not part of the URL; a closing
    bracket is kept only where it closes one the URL opened."""
    while u:
        c = u[-1]
        if c in TRAIL:
            u = u[:-1]
        elif c in PAIRS and u.count(bytes([c])) > u.count(bytes([PAIRS[c]])):
            u = u[:-1]
        else:
            break
    return u


def text_urls(b: bytes) -> list[str]:
    out = []
    for m in TEXT_URL.finditer(b):
        # A Markdown link's target follows its text: `[x](u)`, `[![b](i)](u)`.
        for u in m.group(0).split(b"]("):
            u = trim(u)
            low = u.lower()
            if not TEXT_URL.match(u) or low.endswith((b"://", b":")) or low == b"www.":
                continue
            if low.startswith(b"www.") and b"." not in low[4:]:
                continue
            out.append(u.decode("utf-8", "replace"))
    return out


class Page(HTMLParser):
    def __init__(self, base: str | None):
        super().__init__(convert_charrefs=True)
        self.doc = base
        self.base = base
        self.urls: list[str] = []
        self.raw: str | None = None

    def link(self, v: str) -> None:
        v = v.strip(" \t\n\r\f").replace("\t", "").replace("\n", "").replace("\r", "")
        if v.lower().startswith("javascript:"):
            return
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", v):
            self.urls.append(urljoin(v, "") if v.lower().startswith(("http:", "https:")) else v)
        elif self.base:
            # RFC 3986 5.2: an empty reference is the base without its
            # fragment; a fragment, even an empty one, is kept (urljoin
            # drops an empty one).
            base = self.base.split("#")[0]
            if v.startswith("#"):
                self.urls.append(base + v)
            else:
                self.urls.append(urljoin(base, v) if v else base)

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if v is None:
                continue
            if tag == "base" and k == "href" and self.base is not None:
                self.base = urljoin(self.doc or "", v)
                continue
            if k in URL_ATTRS and not (k == "data" and tag != "object"):
                self.link(v)
            elif k in ("srcset", "imagesrcset"):
                for cand in v.split(","):
                    parts = cand.split()
                    if parts:
                        self.link(parts[0])
            else:
                self.urls.extend(text_urls(v.encode()))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.urls.extend(text_urls(data.encode()))

    def handle_comment(self, data):
        self.urls.extend(text_urls(data.encode()))

    def handle_decl(self, decl):
        # A doctype's public and system identifiers.
        self.urls.extend(text_urls(decl.encode()))


def label(path: Path, base: str | None) -> list[str]:
    b = path.read_bytes()
    if path.suffix in (".html", ".htm"):
        p = Page(base)
        p.feed(b.decode("utf-8", "replace"))
        p.close()
        return p.urls
    return text_urls(b)


def urlsift(binary: str, path: Path, base: str | None) -> list[str]:
    args = [binary, "--format", "json", "-I"]
    if base:
        args += ["--base", base]
    r = subprocess.run(args + [str(path)], capture_output=True, check=False)
    if r.returncode not in (0, 1):
        sys.exit(f"urlsift failed on {path}: {r.stderr.decode()}")
    return [json.loads(line)["url"] for line in r.stdout.splitlines()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["label", "score"])
    ap.add_argument("dir", type=Path)
    ap.add_argument("labels", type=Path, nargs="?")
    ap.add_argument("--base-map", type=Path)
    ap.add_argument("--urlsift", default="urlsift")
    a = ap.parse_args()
    bases = json.loads(a.base_map.read_text()) if a.base_map else {}
    files = sorted(p for p in a.dir.iterdir() if p.is_file())
    if a.mode == "label":
        json.dump({p.name: label(p, bases.get(p.name)) for p in files}, sys.stdout, indent=1)
        return 0
    labels = json.loads(a.labels.read_text())
    tp = fp = fn = 0
    for p in files:
        want = collections.Counter(labels[p.name])
        got = collections.Counter(urlsift(a.urlsift, p, bases.get(p.name)))
        t = sum((want & got).values())
        tp += t
        fp += sum(got.values()) - t
        fn += sum(want.values()) - t
        for u in sorted((got - want).elements()):
            print(f"{p.name}: extra   {u}")
        for u in sorted((want - got).elements()):
            print(f"{p.name}: missed  {u}")
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    print(f"files {len(files)}  labels {tp + fn}  found {tp + fp}  "
          f"precision {prec:.4f}  recall {rec:.4f}  F1 {f1:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
