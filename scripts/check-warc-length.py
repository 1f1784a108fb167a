#!/usr/bin/env python3
"""Check `warc_offset` + `warc_length` against warcio: for each record
urlsift reports links of, the bytes warc_offset .. warc_offset +
warc_length of the file, read alone by warcio, are one record with the
same WARC-Record-ID (or target URI, for ARC) and type.

    python3 scripts/check-warc-length.py [--urlsift target/debug/urlsift] FILE...

Needs warcio. Prints one line per file; exits 1 if any slice disagrees.
"""
import argparse
import io
import json
import subprocess
import sys

from warcio.archiveiterator import ArchiveIterator


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--urlsift", default="target/debug/urlsift")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    bad = 0
    for path in a.files:
        out = subprocess.run([a.urlsift, "--format", "json", path],
                             capture_output=True, check=False).stdout
        recs = {}
        for line in out.splitlines():
            r = json.loads(line)
            if r.get("warc_length") is not None:
                recs[r["warc_offset"]] = r
        data = open(path, "rb").read()
        ok = 0
        for off, r in sorted(recs.items()):
            part = data[off:off + r["warc_length"]]
            try:
                got = list(ArchiveIterator(io.BytesIO(part), arc2warc=True))
            except Exception as e:  # warcio refuses the slice
                got = [e]
            same = len(got) == 1 and not isinstance(got[0], Exception) and (
                (r["warc_record_id"] is not None
                 and got[0].rec_headers.get_header("WARC-Record-ID") == r["warc_record_id"])
                or (r["warc_record_id"] is None
                    and got[0].rec_headers.get_header("WARC-Target-URI") == r["warc_target_uri"]))
            if same:
                ok += 1
            else:
                bad += 1
                print(f"{path}: record at {off} (length {r['warc_length']}): warcio reads "
                      f"{[g if isinstance(g, Exception) else g.rec_headers.get_header('WARC-Record-ID') for g in got]}",
                      file=sys.stderr)
        print(f"{path}: {ok} of {len(recs)} records sliced out by offset and length")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
