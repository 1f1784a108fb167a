#!/usr/bin/env bash
# Time the record formats against each other on one input: --format
# parquet, csv and json, each written to a file, with -j1 and -j2 (or the
# thread counts in THREADS), in paired rounds that alternate the order of
# the formats, so that a machine's drift touches every format alike.
# Prints each one's median wall time, its throughput in MiB/s of input, and
# its speed relative to CSV at the same thread count.
#
#   [URLSIFT_BIN=path] [THREADS="1 2"] scripts/bench-formats.sh FILE [ROUNDS]
#
# ROUNDS defaults to 5. Without URLSIFT_BIN it builds the release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: scripts/bench-formats.sh FILE [ROUNDS]}
rounds=${2:-5}
threads=${THREADS:-1 2}
bin=${URLSIFT_BIN:-}
if [ -z "$bin" ]; then
    cargo build --release -q
    bin=target/release/urlsift
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
formats=(parquet csv json)
size=$(stat -c %s "$file")
urls=$("$bin" -c "$file")
echo "input: $size bytes, $urls URLs; $rounds rounds; $("$bin" --version)"

declare -A times
for ((r = 0; r < rounds; r++)); do
    for j in $threads; do
        # Rotate the order each round: parquet csv json, csv json parquet, ...
        for ((k = 0; k < ${#formats[@]}; k++)); do
            f=${formats[$(((k + r) % ${#formats[@]}))]}
            start=$(date +%s.%N)
            "$bin" -j"$j" --format "$f" --output "$out/o.$f" "$file"
            end=$(date +%s.%N)
            times[$f,$j]+="$(echo "$end - $start" | bc) "
        done
    done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf '%-8s %3s %9s %9s %8s\n' format -j median MiB/s vs-csv
for j in $threads; do
    csv=$(echo "${times[csv,$j]}" | median)
    for f in "${formats[@]}"; do
        m=$(echo "${times[$f,$j]}" | median)
        printf '%-8s %3s %8.2fs %9.1f %7.2fx\n' "$f" "$j" "$m" \
            "$(echo "$size / 1048576 / $m" | bc -l)" "$(echo "$csv / $m" | bc -l)"
    done
done
