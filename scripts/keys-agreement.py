#!/usr/bin/env python3
"""Agreement of urlsift's `surt` and `domain` keys with the Python references.

    python3 scripts/keys-agreement.py [--urlsift PATH] [--examples N] FILE...

Finds the distinct URLs of FILE... with `urlsift --unique --format json`,
then compares:

- `urlsift normalize --dedup-key surt` with `surt.surt(url)` of the Python
  `surt` package (an abbreviated `www.` URL is given to both as `http://...`;
  where the package raises an exception, agreement means urlsift has no key
  either);
- the `domain` field with `publicsuffixlist.PublicSuffixList().privatesuffix`
  of the `host_ascii` field, over the distinct well-formed hosts (a
  registered name that has an ASCII form with no empty label and whose
  last label is not a number: a host such as `0x7f.1` or `1.2.3.04` is an
  IPv4 address by the URL Standard, so urlsift gives it no domain where
  publicsuffixlist reads it as a name; those are counted apart);
- optionally (`--whatwg`), `urlsift normalize --dedup-key whatwg` with the
  Python `ada_url` package's `URL(url).href`.

Needs `pip install surt publicsuffixlist` (and `ada-url` for --whatwg).
Prints the figures, then each disagreement class with examples. Exit
status 0 when surt agrees on at least 99.9% and domain on at least 99.5%.
"""

import argparse
import collections
import json
import subprocess
import sys


def run(cmd, data=None):
    p = subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if p.returncode not in (0, 1, 2):
        sys.exit(f"{cmd[0]}: exit {p.returncode}: {p.stderr.decode(errors='replace')[:500]}")
    return p.stdout


def distinct_urls(urlsift, files):
    out = run([urlsift, "--unique", "--no-html", "-I", "--format", "json", *files])
    recs = []
    for line in out.splitlines():
        recs.append(json.loads(line))
    return recs


def keys_of(urlsift, level, urls):
    data = "".join(u + "\n" for u in urls).encode("utf-8", "surrogateescape")
    lines = run([urlsift, "normalize", "--dedup-key", level], data).decode("utf-8", "replace").split("\n")
    lines = lines[: len(urls)]
    return [l if l else None for l in lines]


def surt_class(url, ours, theirs):
    """A disagreement's class: what in the URL the two readings differ on."""
    try:
        import surt.handyurl as hu
        h = hu.handyurl.parse(url.encode("utf-8", "surrogateescape"))
        host = (h.host or b"").decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - any parse failure is its own class
        host = ""
    if theirs is None:
        return "the Python package raises an exception"
    if ours is None:
        return "urlsift has no key"
    if any(ord(c) > 127 for c in host) or "%" in host:
        return "non-ASCII host: UTS #46 (urlsift) vs IDNA 2003 (Python's idna codec)"
    return "other"


def numeric_last_label(host):
    last = host.rstrip(".").rsplit(".", 1)[-1]
    if last.isdigit():
        return True
    return last[:2].lower() == "0x" and all(c in "0123456789abcdefABCDEF" for c in last[2:])


def domain_class(host, ours, theirs):
    if host.endswith("."):
        return "trailing dot"
    labels = host.split(".")
    if any(l.startswith("xn--") for l in labels):
        return "IDN labels (punycode rules of the list)"
    if ours is None and theirs is not None:
        return "urlsift: none (public suffix or not a domain)"
    if theirs is None and ours is not None:
        return "publicsuffixlist: none"
    return "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--urlsift", default="urlsift")
    ap.add_argument("--examples", type=int, default=5)
    ap.add_argument("--whatwg", action="store_true")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    import publicsuffixlist
    import surt

    recs = distinct_urls(a.urlsift, a.files)
    urls = [("http://" + r["url"]) if r["kind"] == "www" else r["url"] for r in recs]
    print(f"distinct URLs: {len(urls)}")

    # SURT
    ours = keys_of(a.urlsift, "surt", urls)
    agree = 0
    classes = collections.defaultdict(list)
    for u, o in zip(urls, ours):
        try:
            t = surt.surt(u)
        except Exception:  # noqa: BLE001 - the package's failures are compared
            t = None
        if o == t:
            agree += 1
        else:
            classes[surt_class(u, o, t)].append((u, o, t))
    surt_rate = agree / max(1, len(urls))
    print(f"surt: {agree}/{len(urls)} agree ({100 * surt_rate:.3f}%)")
    for c, xs in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(xs):6d}  {c}")
        for u, o, t in xs[: a.examples]:
            print(f"          {u!r}\n            urlsift: {o!r}\n            python:  {t!r}")

    # Registrable domains, over distinct well-formed hosts.
    psl = publicsuffixlist.PublicSuffixList()
    hosts = {}
    numeric = {}
    for r in recs:
        h = r.get("host_ascii")
        if r.get("host_kind") != "reg-name" or not h:
            continue
        body = h[:-1] if h.endswith(".") else h
        if not body or any(not l for l in body.split(".")):
            continue
        if numeric_last_label(h):
            numeric[h] = r.get("domain")
            continue
        hosts[h] = r.get("domain")
    agree = 0
    classes = collections.defaultdict(list)
    for h, o in hosts.items():
        t = psl.privatesuffix(h)
        if o == t:
            agree += 1
        else:
            classes[domain_class(h, o, t)].append((h, o, t))
    dom_rate = agree / max(1, len(hosts))
    print(f"domain: {agree}/{len(hosts)} distinct well-formed hosts agree ({100 * dom_rate:.3f}%)")
    n_agree = sum(1 for h, o in numeric.items() if o == psl.privatesuffix(h))
    print(
        f"  and {n_agree}/{len(numeric)} hosts whose last label is a number (IPv4 by the URL"
        f" Standard: urlsift gives no domain); overall {agree + n_agree}/{len(hosts) + len(numeric)}"
    )
    for h in list(numeric)[: a.examples]:
        print(f"          {h!r}: urlsift {numeric[h]!r}, publicsuffixlist {psl.privatesuffix(h)!r}")
    for c, xs in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(xs):6d}  {c}")
        for h, o, t in xs[: a.examples]:
            print(f"          {h!r}: urlsift {o!r}, publicsuffixlist {t!r}")

    if a.whatwg:
        import ada_url
        ours = keys_of(a.urlsift, "whatwg", urls)
        agree = 0
        diffs = []
        for u, o in zip(urls, ours):
            try:
                t = ada_url.URL(u).href
            except Exception:  # noqa: BLE001 - a parse failure is compared
                t = None
            if o == t:
                agree += 1
            else:
                diffs.append((u, o, t))
        print(f"whatwg: {agree}/{len(urls)} agree with the ada_url package")
        for u, o, t in diffs[: a.examples]:
            print(f"          {u!r}: urlsift {o!r}, ada_url {t!r}")

    return 0 if surt_rate >= 0.999 and dom_rate >= 0.995 else 1


if __name__ == "__main__":
    sys.exit(main())
