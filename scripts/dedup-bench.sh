#!/usr/bin/env bash
# De-duplication benchmark: distinct-URL throughput and peak memory, with
# and without spilling, against `sort -u` in the same run.
#
#   scripts/dedup-bench.sh [-n URLS] [-d DISTINCT] [-m MAX_MEMORY] [-j THREADS] [--keep]
#
#   -n URLS      URLs in the generated text (default 10000000)
#   -d DISTINCT  distinct normalized URLs among them (default 6000000)
#   -m SIZE      --max-memory for the spilling runs (default 256M)
#   -j N         urlsift threads (default 1)
#   --keep       keep the generated text (datasets/generated/dedup-N-D.txt)
#
# The text is generated deterministically (python3, standard library): one
# URL per line in prose, over 5000 hosts, each distinct URL written in one of
# several RFC 3986-equivalent spellings (upper-case scheme and host, :80,
# percent-encoded unreserved characters, dot segments), so that
# `--dedup-key scheme` has real work to do. Prints a Markdown table: wall
# seconds, URLs/s, peak RSS (from /usr/bin/time), distinct URLs out, and what
# was spilled. Every mode must give the same number of distinct URLs; the
# spilled and in-memory outputs must be identical (checked with cmp).
# urlsift reads the text from standard input (streamed in 16 MiB blocks, not
# mapped), so peak RSS is the process's own memory: buffers plus the
# de-duplication state. The peak RSS of `sort` is that of urlsift or sort,
# whichever is larger (/usr/bin/time reports the largest process).
set -euo pipefail
cd "$(dirname "$0")/.."

n=10000000
d=6000000
mem=256M
threads=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -n) n=$2; shift 2 ;;
        -d) d=$2; shift 2 ;;
        -m) mem=$2; shift 2 ;;
        -j) threads=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "usage: $0 [-n URLS] [-d DISTINCT] [-m SIZE] [-j N] [--keep]" >&2; exit 2 ;;
    esac
done

cargo build --profile release-lto -q
bin=target/release-lto/urlsift
mkdir -p datasets/generated
text=datasets/generated/dedup-$n-$d.txt
work=$(mktemp -d)
trap 'rm -rf "$work"; [ "$keep" = 1 ] || rm -f "$text"' EXIT

if [ ! -s "$text" ]; then
    python3 - "$n" "$d" "$text" <<'PY'
import sys
n, d, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
words = "the of and to in is that for it as was with be by on not he this are or".split()
x = 0x9E3779B97F4A7C15
M = (1 << 64) - 1
with open(path, "w", buffering=1 << 20) as f:
    out = []
    for i in range(n):
        x ^= (x << 13) & M; x ^= x >> 7; x ^= (x << 17) & M
        k = x % d
        host = f"h{k % 5000}.example.org"
        path_ = f"/docs/{k // 5000}/page-{k % 97}.html"
        v = (x >> 40) % 6
        if v == 0:
            url = f"http://{host}{path_}"
        elif v == 1:
            url = f"HTTP://{host.upper()}:80{path_}"
        elif v == 2:
            url = f"http://{host}/docs/./x/..{path_[5:]}"
        elif v == 3:
            url = f"<http://{host}{path_.replace('page', '%70age')}>"
        elif v == 4:
            url = f"http://{host}{path_}?"[:-1]
        else:
            url = f"(see http://{host}{path_})"
        w = words[x % len(words)]
        out.append(f"{w} {words[(x >> 8) % len(words)]} {url} {w}.\n")
        if len(out) >= 100000:
            f.write("".join(out)); out.clear()
    f.write("".join(out))
PY
fi
bytes=$(stat -c %s "$text")
echo "text: $text, $bytes bytes, $n URLs, $d distinct (generated)" >&2

run() { # name, output file, command...
    local name=$1 out=$2
    shift 2
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" <"$text" >"$out" 2>"$work/err" || {
        cat "$work/err" >&2
        return 1
    }
    read -r secs rss <"$work/time"
    local lines
    lines=$(wc -l <"$out")
    local spill
    spill=$(sed -n 's/.*dedup: .*; \(spilled [^;]*\|nothing spilled\)$/\1/p' "$work/err")
    awk -v name="$name" -v s="$secs" -v rss="$rss" -v n="$n" -v lines="$lines" -v spill="${spill:--}" \
        'BEGIN { printf "| %s | %.2f | %.2f M | %.0f MiB | %d | %s |\n", name, s, n / s / 1e6, rss / 1024, lines, spill }'
}

echo
echo "| mode | wall s | URLs/s | peak RSS | lines out | spill |"
echo "|---|---:|---:|---:|---:|---|"
run "scan only (-c)" "$work/c" "$bin" -j"$threads" -c -
run "--unique --dedup-key scheme (in memory)" "$work/u-mem" \
    "$bin" -j"$threads" --stats --unique --dedup-key scheme --max-memory 64G -
run "--unique --dedup-key scheme --max-memory $mem" "$work/u-spill" \
    "$bin" -j"$threads" --stats --unique --dedup-key scheme --max-memory "$mem" --temp-dir "$work" -
run "--count-by url --dedup-key scheme (in memory)" "$work/c-mem" \
    "$bin" -j"$threads" --stats --count-by url --dedup-key scheme --max-memory 64G -
run "--count-by url --dedup-key scheme --max-memory $mem" "$work/c-spill" \
    "$bin" -j"$threads" --stats --count-by url --dedup-key scheme --max-memory "$mem" --temp-dir "$work" -
run "peer: --normalize, then sort -u -S $mem" "$work/sort" \
    sh -c "'$bin' -j'$threads' --normalize - | LC_ALL=C sort -u -S '$mem' -T '$work'"
echo
cmp "$work/u-mem" "$work/u-spill" && echo "unique: spilled output = in-memory output" >&2
cmp "$work/c-mem" "$work/c-spill" && echo "count-by: spilled output = in-memory output" >&2
[ "$(wc -l <"$work/u-mem")" = "$(wc -l <"$work/sort")" ] &&
    echo "unique: same number of distinct URLs as sort -u" >&2
