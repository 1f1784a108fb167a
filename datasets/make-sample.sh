#!/usr/bin/env bash
# Rebuild datasets/sample.txt: excerpts of documentation that Debian ships
# (changelogs, a copyright file, a man page, a licence text), each excerpt
# preceded by a "==== source: ... / licence: ..." line. The committed file is
# the reference (another machine has other package versions); see README.md.
#
# usage: datasets/make-sample.sh [OUTPUT]   (default datasets/sample.txt)
set -euo pipefail
out=${1:-datasets/sample.txt}
doc=/usr/share/doc
{
    # head -c without SIGPIPE for the writer (pipefail is on)
    take() { head -c "$1"; cat > /dev/null; }
    part() { printf '\n==== source: %s / licence: %s\n\n' "$1" "$2"; }
    part "$doc/python3-pip/changelog.gz (first 100000 bytes)" "MIT (Expat), see $doc/python3-pip/copyright"
    zcat "$doc/python3-pip/changelog.gz" | take 100000
    part "$doc/libsqlite3-0/changelog.html.gz (first 80000 bytes)" "public domain, see $doc/libsqlite3-0/copyright"
    zcat "$doc/libsqlite3-0/changelog.html.gz" | take 80000
    part "$doc/libjansi-java/changelog.gz" "Apache-2.0, see $doc/libjansi-java/copyright"
    zcat "$doc/libjansi-java/changelog.gz"
    part "$doc/libharfbuzz0b/copyright" "MIT (the file itself is Debian packaging, same licence)"
    cat "$doc/libharfbuzz0b/copyright"
    part "man 1 curl, rendered with 'MANWIDTH=80 man -P cat curl' (first 40000 bytes)" "curl licence (MIT/X derivative), see $doc/curl/copyright"
    MANWIDTH=80 man -P cat curl 2>/dev/null | take 40000
    part "/usr/share/common-licenses/Apache-2.0" "verbatim copying permitted (the licence text itself)"
    cat /usr/share/common-licenses/Apache-2.0
} > "$out"
echo "$out: $(wc -c < "$out") bytes" >&2
