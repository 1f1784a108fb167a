#!/usr/bin/env bash
# Build datasets/urls.txt, the URL list for benches/uri.rs: URLs grepped with a
# simple regex out of the text under /usr/share/doc and /usr/share/man on a
# Debian machine (gzip-compressed files are decompressed), deduplicated, sorted
# bytewise, at most $CAP (default 40) per host (so that one big changelog does
# not dominate), then every k-th line kept so that about $N (default 4000) remain.
# Lines that are not valid UTF-8 are dropped (the peers need &str).
#
# Usage: scripts/make-url-list.sh [OUTPUT]   (default datasets/urls.txt)
set -euo pipefail
out=${1:-datasets/urls.txt}
n=${N:-4000}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

export LC_ALL=C
find /usr/share/doc /usr/share/man -type f -print0 2>/dev/null | sort -z |
    xargs -0 zcat -f -- 2>/dev/null |
    grep -aoP '(?<![A-Za-z0-9+.-])([a-zA-Z][a-zA-Z0-9+.-]*://|mailto:|news:|urn:)[^][:space:]<>"{}|\\^`]+' |
    sed -E 's/[.,;:!?'"'"')]+$//' |
    awk 'length($0) > 8 && length($0) < 400' |
    LC_ALL=C.UTF-8 grep -ax '.*' |
    sort -u |
    awk -F/ '{ if (++seen[$3] <= cap) print }' cap="${CAP:-40}" >"$tmp"

total=$(wc -l <"$tmp")
k=$(( (total + n - 1) / n ))
[ "$k" -ge 1 ] || k=1
awk -v k="$k" 'NR % k == 1 || k == 1' "$tmp" >"$out"
echo "$out: $(wc -l <"$out") URLs (every ${k}th of $total distinct), $(wc -c <"$out") bytes" >&2
