#!/usr/bin/env bash
# Compare two urlsift binaries' outputs, byte for byte, for every format and
# mode, on the given inputs (default: datasets/ and tests/data/).
#
#   scripts/compare-outputs.sh OLD_BIN NEW_BIN [INPUT...]
#
# stdout, the exit status and every output file must be byte-identical;
# stderr must hold the same lines (in any order). Prints one line per case
# (`same` or `DIFFERS`), then the count of each, and exits 1 if any differ.
# The inputs cover text, mail, HTML, WARC (plain and gzip) and WET; each
# format and mode runs at -j1, -j2 and -j2 --chunk-size 1000.
set -uo pipefail
old=$1
new=$2
shift 2
inputs=("$@")
[ ${#inputs[@]} -eq 0 ] && inputs=(datasets/sample.txt datasets/sample.mbox datasets/urls.txt
    tests/data tests/data/html/sample.html tests/data/mail/own/archive.mbox
    crates/warc/tests/data crates/warc/tests/data/sample.warc.gz
    crates/warc/tests/data/sample.warc crates/warc/tests/data/sample.wet
    crates/core/tests/data crates/uri/tests/data)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
same=0
differs=0
# One case: the arguments after the input list; `@IN` stands for the input.
run_case() {
    local input=$1
    shift
    local args=()
    for a in "$@"; do
        if [ "$a" = "@IN" ]; then args+=("$input"); else args+=("$a"); fi
    done
    for which in old new; do
        local bin=${!which}
        local dir=$work/$which
        rm -rf "$dir" && mkdir -p "$dir"
        if [ -f "$input" ] && [ "${STDIN:-}" = 1 ]; then
            (cd "$dir" && "$bin" "${args[@]}" <"$input" >stdout 2>stderr; echo "exit $?" >status)
        else
            (cd "$dir" && "$bin" "${args[@]}" >stdout 2>stderr; echo "exit $?" >status)
        fi
        # Output files (out.*, shard directories) are compared too. Workers
        # report warnings as they meet them, so stderr is compared as a sorted
        # set of lines. The one-per-run mail hint is left out: a build that
        # prints it as workers meet inputs may name another input. The time
        # and throughput of --stats differ from run to run.
        grep -v ': looks like mail; --mail decodes' "$dir/stderr" |
            sed -E 's/^(urlsift: run: .*), [0-9.]+ s, [0-9.]+ MiB\/s$/\1, T s, R MiB\/s/' |
            sort >"$dir/stderr.sorted"
        rm "$dir/stderr"
    done
    if diff -r "$work/old" "$work/new" >/dev/null; then
        echo "same     ${args[*]}"
        same=$((same + 1))
    else
        echo "DIFFERS  ${args[*]}"
        diff -r "$work/old" "$work/new" | head -n 6 | sed 's/^/    /'
        differs=$((differs + 1))
        fail=1
    fi
}
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
for i in "${inputs[@]}"; do
    i=$(abs "$i")
    for j in 1 2 8; do
        run_case "$i" -j$j @IN
    done
    run_case "$i" --chunk-size 1000 @IN
    run_case "$i" -n -b -H @IN
    run_case "$i" --color always -n @IN
    run_case "$i" --no-mmap @IN
    run_case "$i" --strict @IN
    run_case "$i" --isa scalar @IN
    run_case "$i" --unique --dedup-key no-fragment @IN
    run_case "$i" --files-without-match @IN
    run_case "$i" -q @IN
    run_case "$i" --normalize @IN
    for f in json csv tsv; do
        run_case "$i" --format $f @IN
        run_case "$i" --format $f --normalize -j8 @IN
    done
    run_case "$i" --format parquet --output out.parquet @IN
    run_case "$i" -c @IN
    run_case "$i" -c --format json @IN
    run_case "$i" --unique @IN
    run_case "$i" --unique --normalize @IN
    run_case "$i" --unique --max-memory 1M @IN
    run_case "$i" --count-by host @IN
    run_case "$i" --count-by host --format json @IN
    run_case "$i" --shards 4 --output shards @IN
    run_case "$i" --shards 4 --format parquet --output shards @IN
    run_case "$i" -l @IN
    run_case "$i" -m 3 @IN
    run_case "$i" --scheme https @IN
    run_case "$i" --stats @IN
    run_case "$i" --mail @IN
    run_case "$i" --mail --format json -j2 @IN
    run_case "$i" --output out.txt @IN
    run_case "$i" --html @IN
    run_case "$i" --no-html @IN
    run_case "$i" --base https://base.example/dir/page @IN
    run_case "$i" --vimgrep @IN
    run_case "$i" -m 1 -j2 @IN
    run_case "$i" -q -j2 @IN
    run_case "$i" --mail -m 2 -n @IN
    # The cut of -m, -l and -q in every mode that formats records.
    run_case "$i" -m 1 @IN
    run_case "$i" -m 2 --chunk-size 1000 -j2 -n -b @IN
    run_case "$i" -c -m 2 @IN
    run_case "$i" -m 0 @IN
    run_case "$i" -c -m 0 @IN
    run_case "$i" -m 2 --stats @IN
    run_case "$i" -l --stats @IN
    run_case "$i" --files-without-match -j2 @IN
    run_case "$i" --unique -m 5 @IN
    run_case "$i" --count-by host -m 4 @IN
    run_case "$i" --format json -m 2 --chunk-size 1000 @IN
    run_case "$i" --format parquet -m 3 --output out.parquet @IN
    run_case "$i" --shards 3 -m 4 --output shards @IN
    run_case "$i" --vimgrep -m 2 @IN
    run_case "$i" --mail -m 1 --format json @IN
    run_case "$i" --mail --vimgrep -m 3 @IN
    run_case "$i" --mail -l @IN
    run_case "$i" --html -m 1 -n @IN
    run_case "$i" --strict --scheme https -m 2 @IN
    # One input, one worker: what -q counted is the same from run to run.
    [ -f "$i" ] && run_case "$i" -q --stats @IN
    # The issue's list of formats and modes, at -j1, -j2 and small chunks.
    for mode in "-j1" "-j2" "-j2 --chunk-size 1000"; do
        read -ra m <<<"$mode"
        run_case "$i" "${m[@]}" @IN
        run_case "$i" "${m[@]}" -n -b -H @IN
        for f in json csv tsv; do
            run_case "$i" "${m[@]}" --format $f --output out.$f @IN
        done
        run_case "$i" "${m[@]}" --format parquet --output out.parquet @IN
        run_case "$i" "${m[@]}" -c @IN
        run_case "$i" "${m[@]}" -l @IN
        run_case "$i" "${m[@]}" -m 3 @IN
        run_case "$i" "${m[@]}" --unique --normalize @IN
        run_case "$i" "${m[@]}" --count-by host @IN
        run_case "$i" "${m[@]}" --shards 3 --output shards @IN
        run_case "$i" "${m[@]}" --mail -n -b @IN
    done
done
# Standard input: the stream reader.
for i in "${inputs[@]}"; do
    [ -f "$i" ] || continue
    i=$(abs "$i")
    STDIN=1 run_case "$i" -n -b
    STDIN=1 run_case "$i" --format json -j2 --chunk-size 1000
    STDIN=1 run_case "$i" --mail -n
    STDIN=1 run_case "$i" -j1 -m 3
    STDIN=1 run_case "$i" -j2 --chunk-size 1000 -l
    STDIN=1 run_case "$i" --html -n
    STDIN=1 run_case "$i" -m 1
    STDIN=1 run_case "$i" -m 2 -j2 --chunk-size 1000 -n -b
    STDIN=1 run_case "$i" -q
    STDIN=1 run_case "$i" -l
    STDIN=1 run_case "$i" --files-without-match
    STDIN=1 run_case "$i" -c -m 2
    STDIN=1 run_case "$i" --vimgrep -m 2
    STDIN=1 run_case "$i" --mail -m 1 -n
    STDIN=1 run_case "$i" --mail -l
    STDIN=1 run_case "$i" --mail -q
    STDIN=1 run_case "$i" --html -m 1 -n
    STDIN=1 run_case "$i" --unique -m 3 --format json
done
# A pipe that never ends: -m, -q and -l must stop reading it and exit.
for mode in "-m 1" "-m 3 -j2" "-q" "-l" "-q --mail" "-m 1 --chunk-size 1000" \
    "-m 2 --mail" "-l --mail" "--vimgrep -m 1" "-c -m 2"; do
    read -ra m <<<"$mode"
    for which in old new; do
        bin=${!which}
        dir=$work/$which
        rm -rf "$dir" && mkdir -p "$dir"
        (cd "$dir" && { yes 'see http://a.example/x and https://b.example/' |
            timeout 20 "$bin" "${m[@]}" >stdout 2>stderr; echo "exit ${PIPESTATUS[1]}" >status; })
    done
    if diff -r "$work/old" "$work/new" >/dev/null; then
        echo "same     (endless pipe) ${m[*]}"
        same=$((same + 1))
    else
        echo "DIFFERS  (endless pipe) ${m[*]}"
        differs=$((differs + 1))
        fail=1
    fi
done
for i in "${inputs[@]}"; do
    [ -f "$i" ] || continue
    i=$(abs "$i")
    run_case "$i" parse @IN
    run_case "$i" normalize @IN
    run_case "$i" resolve http://a/b/c/d\;p?q @IN
done
echo "$same same, $differs DIFFERS"
exit $fail
