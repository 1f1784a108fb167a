#!/usr/bin/env bash
# "Beyond one machine", for real: scan a directory into sharded Parquet, then
# count distinct normalized URLs and the top hosts with DuckDB, and check the
# numbers against urlsift's own --unique / --count-by.
#
#   [URLSIFT_BIN=path] scripts/duckdb-example.sh [DIR]
#
# Without DIR, it scans a directory made of datasets/sample.txt,
# datasets/urls.txt and an 8 MiB link-dense corpus from
# `scripts/make-corpus.sh -k links -s 8M` (deterministic).
#
# Needs python3 with the duckdb package; installs it with pip (--user) when
# missing, and skips LOUDLY (exit 0) when it cannot. docs/sharding.md
# shows this script's output.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-}

if ! python3 -c 'import duckdb' 2>/dev/null; then
    echo "duckdb-example: installing the duckdb Python package" >&2
    if ! python3 -m pip install --quiet --user duckdb >&2 &&
        ! python3 -m pip install --quiet duckdb >&2; then
        echo "duckdb-example: SKIPPED: the duckdb Python package cannot be had" >&2
        exit 0
    fi
    if ! python3 -c 'import duckdb' 2>/dev/null; then
        echo "duckdb-example: SKIPPED: duckdb installed but not importable" >&2
        exit 0
    fi
fi

# URLSIFT_BIN: a urlsift binary already built (CI passes the debug one).
bin=${URLSIFT_BIN:-}
if [ -z "$bin" ]; then
    cargo build --release -q
    bin=target/release/urlsift
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ -z "$dir" ]; then
    dir=$out/corpus
    mkdir -p "$dir"
    cp datasets/sample.txt datasets/urls.txt "$dir/"
    bash scripts/make-corpus.sh -k links -s 8M -o "$dir/links.txt" >/dev/null
fi

echo "\$ urlsift --format parquet --dedup-key scheme --shards 4 --output shards/ corpus/"
ls -l "$dir" | awk 'NR > 1 { printf "  corpus/%s  %d bytes\n", $9, $5 }'
"$bin" --format parquet --dedup-key scheme --shards 4 --output "$out/shards" "$dir"
ls "$out/shards" | sed 's/^/  /'

distinct=$("$bin" --unique --dedup-key scheme "$dir" | wc -l)
top=$("$bin" --count-by host "$dir" | head -5)

python3 - "$out/shards" "$distinct" "$top" <<'PY'
import sys
import duckdb

shards, want_distinct, want_top = sys.argv[1], int(sys.argv[2]), sys.argv[3]
con = duckdb.connect()
con.execute(f"CREATE VIEW urls AS SELECT * FROM read_parquet('{shards}/*.parquet', filename = true)")

def show(title, sql):
    print(f"\n-- {title}\n{sql.strip()};")
    rel = con.sql(sql)
    print(rel)
    return rel.fetchall()

rows = show("URLs and distinct normalized URLs (the key urlsift --unique uses)", """
SELECT count(*) AS urls,
       count(DISTINCT coalesce(normalized, url)) AS distinct_urls
FROM urls""")
got_distinct = rows[0][1]

per_shard = show("Each shard de-duplicates on its own: the per-shard counts add up", """
SELECT regexp_extract(filename, 'part-[0-9]+') AS shard,
       count(DISTINCT coalesce(normalized, url)) AS distinct_urls
FROM urls GROUP BY shard ORDER BY shard""")

top = show("Top hosts", """
SELECT lower(host) AS host, count(*) AS urls
FROM urls WHERE host IS NOT NULL AND host <> ''
GROUP BY 1 ORDER BY urls DESC, host LIMIT 5""")

ok = True
# Offsets and counts are signed 64-bit: DuckDB's (and Spark's) bigint.
types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE urls)").fetchall())
for c in ("start", "end", "line", "warc_offset"):
    if types.get(c) != "BIGINT":
        print(f"MISMATCH: column {c} is {types.get(c)}, not BIGINT")
        ok = False
if got_distinct != want_distinct:
    print(f"MISMATCH: duckdb distinct {got_distinct}, urlsift --unique {want_distinct}")
    ok = False
if sum(c for _, c in per_shard) != got_distinct:
    print("MISMATCH: per-shard distinct counts do not add up")
    ok = False
want = [(l.split()[1], int(l.split()[0])) for l in want_top.splitlines()]
if [(h, n) for h, n in top] != want:
    print(f"MISMATCH: top hosts {top} vs urlsift --count-by host {want}")
    ok = False
print("\nduckdb-example: DuckDB agrees with urlsift --unique and --count-by host" if ok else "")
sys.exit(0 if ok else 1)
PY
