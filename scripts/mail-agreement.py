#!/usr/bin/env python3
"""Score urlsift's ``--mail`` reading of real mail against labels.

    mail-agreement.py label DIR > LABELS.json
    mail-agreement.py score [--urlsift BIN] [--show] DIR LABELS.json

A mail set is a directory of real messages, one file each (``.eml``, a
maildir file, or an mbox). ``label`` writes a first set of labels by an
independent reading with the standard library: the ``email`` package splits
the message and undoes the transfer encodings and charsets, every header
block (the message's and each part's) is read unfolded with its RFC 2047
encoded words decoded, ``text/html`` parts are read with ``html.parser`` and
``urllib.parse.urljoin`` (the URL attributes resolved against the part's
``<base href>``; absolute URLs of other attributes, text, comments and
scripts by the text rules), and other ``text/*`` parts, preambles and
epilogues by a regular expression with RFC 3986 Appendix C's delimiting
rules (the ``email`` package reads the field groups of a delivery report,
``message/delivery-status``, as header blocks). A person then reads each message and corrects the labels by hand
(``score --show`` prints every disagreement with the part it came from, to
make that review quick). ``score`` runs ``urlsift --mail --format json`` on
each file and prints precision, recall and F1 over the multiset of
(file, URL) pairs, and the same per source (the file name up to ``__``).
"""

from __future__ import annotations

import argparse
import base64
import collections
import email
import email.policy
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

# The HTML and text rules are those of the document scorer beside this file.
_spec = importlib.util.spec_from_file_location(
    "doc_agreement", Path(__file__).with_name("doc-agreement.py"))
doc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(doc)

URN = re.compile(rb"\burn:[a-z0-9][a-z0-9-]{0,31}:[^\s<>\"'`{}|\\^\x00-\x1f\x7f]+", re.IGNORECASE)
_doc_text_urls = doc.text_urls


def text_urls(b: bytes) -> list[str]:
    """The document scorer's text rules, with three rules of text in mail:
    a no-break space ends a URL as a space does, a ``www.`` inside an
    address or a longer host name (``list@www.example.org``) is not a URL
    of its own, and ``urn:`` names are URIs as ``mailto:`` addresses are."""
    b = b.replace("\u00a0".encode(), b" ")
    out = []
    for m in doc.TEXT_URL.finditer(b):
        if m.group(0)[:4].lower() == b"www." and m.start() > 0 \
                and re.match(rb"[@A-Za-z0-9._-]", b[m.start() - 1:m.start()]):
            continue
        out += _doc_text_urls(m.group(0))
    out += [doc.trim(m.group(0)).decode("utf-8", "replace") for m in URN.finditer(b)]
    return out


# The HTML reader of the document scorer reads attribute values and text
# by the same rules.
doc.text_urls = text_urls

ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([qQbB])\?([^?\s]*)\?=")


def decode_words(v: str) -> str:
    """RFC 2047: each encoded word that stands alone becomes its text; the
    blanks between two adjacent encoded words go."""
    v = re.sub(r"(\?=)[ \t]+(?==\?)", r"\1", v)

    def one(m: re.Match) -> str:
        cs, enc, text = m.group(1).split("*")[0], m.group(2).lower(), m.group(3)
        try:
            if enc == "q":
                raw = re.sub(r"=([0-9A-Fa-f]{2})",
                             lambda h: chr(int(h.group(1), 16)),
                             text.replace("_", " ")).encode("latin-1")
            else:
                raw = base64.b64decode(text + "=" * (-len(text) % 4))
            return raw.decode(cs)
        except (LookupError, ValueError, UnicodeError):
            return m.group(0)

    return ENCODED_WORD.sub(one, v)


def header_urls(raw: bytes) -> list[str]:
    """The URLs of a raw header block, unfolded, encoded words decoded."""
    text = raw.decode("utf-8", "surrogateescape")
    text = re.sub(r"\r?\n(?=[ \t])", "", text)
    out = []
    for line in text.split("\n"):
        out += text_urls(decode_words(line).encode("utf-8", "surrogateescape"))
    return out


def split_messages(b: bytes) -> list[bytes]:
    """An mbox's messages (mboxrd), or the file as one message."""
    if not b.startswith(b"From "):
        return [b]
    msgs = re.split(rb"(?:^|\n)From [^\n]*\n", b)
    return [re.sub(rb"(?m)^>(>*From )", rb"\1", m) for m in msgs if m.strip()]


def raw_header(b: bytes) -> bytes:
    m = re.search(rb"\r?\n\r?\n", b)
    return b[: m.start()] if m else b


def part_text(part) -> str:
    payload = part.get_payload(decode=True) or b""
    cs = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(cs, "replace")
    except LookupError:
        return payload.decode("utf-8", "replace")


def label_message(b: bytes) -> list[tuple[str, str]]:
    """(where, URL) for each URL of one message."""
    out: list[tuple[str, str]] = []
    msg = email.message_from_bytes(b, policy=email.policy.compat32)
    out += [("header", u) for u in header_urls(raw_header(b))]
    for i, part in enumerate(msg.walk()):
        if i:
            hdr = "".join(f"{k}: {v}\n" for k, v in part.items()).encode(
                "utf-8", "surrogateescape")
            out += [(f"{i} header", u) for u in header_urls(hdr)]
        ct = part.get_content_type()
        if part.is_multipart():
            for extra in (part.preamble, part.epilogue):
                if extra:
                    out += [(f"{i} {ct} outside", u)
                            for u in text_urls(extra.encode("utf-8", "surrogateescape"))]
            continue
        if part.get_content_maintype() != "text":
            continue
        text = part_text(part)
        if ct == "text/html":
            p = doc.Page(None)
            p.feed(text)
            p.close()
            out += [(f"{i} {ct}", u) for u in p.urls]
        else:
            out += [(f"{i} {ct}", u) for u in text_urls(text.encode("utf-8", "replace"))]
    return out


def label(path: Path) -> list[str]:
    return [u for m in split_messages(path.read_bytes()) for _, u in label_message(m)]


def urlsift(binary: str, path: Path) -> list[dict]:
    r = subprocess.run([binary, "--mail", "--format", "json", "-I", str(path)],
                       capture_output=True, check=False)
    if r.returncode not in (0, 1):
        sys.exit(f"urlsift failed on {path}: {r.stderr.decode()}")
    return [json.loads(line) for line in r.stdout.splitlines()]


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["label", "score"])
    ap.add_argument("dir", type=Path)
    ap.add_argument("labels", type=Path, nargs="?")
    ap.add_argument("--urlsift", default="urlsift")
    ap.add_argument("--show", action="store_true",
                    help="print each disagreement with the part it came from")
    a = ap.parse_args()
    files = sorted(p for p in a.dir.iterdir() if p.is_file())
    if a.mode == "label":
        json.dump({p.name: label(p) for p in files}, sys.stdout, indent=1, ensure_ascii=False)
        print()
        return 0
    labels = json.loads(a.labels.read_text())
    counts: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    msgs = 0
    for p in files:
        want = collections.Counter(labels[p.name])
        rows = urlsift(a.urlsift, p)
        msgs += len(split_messages(p.read_bytes()))
        got = collections.Counter(r["url"] for r in rows)
        t = sum((want & got).values())
        c = counts[p.name.split("__")[0]]
        c[0] += t
        c[1] += sum(got.values()) - t
        c[2] += sum(want.values()) - t
        if a.show:
            where = {r["url"]: f'part {r["part"]} {r["content_type"]}' for r in rows}
            for u in sorted((got - want).elements()):
                print(f"{p.name}: extra   {u}   ({where[u]})")
            for u in sorted((want - got).elements()):
                print(f"{p.name}: missed  {u}")
    for src in sorted(counts):
        tp, fp, fn = counts[src]
        pr, rc, f1 = prf(tp, fp, fn)
        print(f"  {src:<14} labels {tp + fn:>5}  found {tp + fp:>5}  "
              f"precision {pr:.4f}  recall {rc:.4f}  F1 {f1:.4f}")
    tp, fp, fn = (sum(c[i] for c in counts.values()) for i in range(3))
    pr, rc, f1 = prf(tp, fp, fn)
    print(f"files {len(files)}  messages {msgs}  labels {tp + fn}  found {tp + fp}  "
          f"precision {pr:.4f}  recall {rc:.4f}  F1 {f1:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
