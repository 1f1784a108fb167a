#!/usr/bin/env bash
# Run every shell example of README.md and check that it exits as it says.
#
#   scripts/readme-examples.sh [--install]
#
# Each line of a ```sh block is run by bash, from a scratch directory that
# links the repository's datasets/, tests/ and crates/ (so the examples'
# inputs are there and their outputs land in the scratch directory), with
# `urlsift` on PATH: $URLSIFT_BIN, or target/debug/urlsift, and `pipefail`
# set. A line passes
# when its exit status is the one its comment gives (`# exit 1: ...`), or 0
# when its comment gives none.
#
# Set-up lines run elsewhere and are only listed: `cargo test` is CI's test
# stage and `pip install`/`pip wheel` its Python stage (scripts/python-ci.sh).
# `cargo install` and `cargo run --release` build the release binary: with
# --install they run here too (installing into the scratch directory), and
# their time is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
install=0
[ "${1:-}" = --install ] && install=1

bin=${URLSIFT_BIN:-$root/target/debug/urlsift}
[ -x "$bin" ] || { echo "readme-examples: no binary at $bin (cargo build first)" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin" "$scratch/work"
ln -s "$bin" "$scratch/bin/urlsift"
for d in datasets tests crates; do ln -s "$root/$d" "$scratch/work/$d"; done

# The lines of the ```sh blocks, with their line numbers.
mapfile -t lines < <(awk '/^```sh$/ {on=1; next} /^```/ {on=0} on && NF {print NR "\t" $0}' README.md)

failed=0 ran=0
for entry in "${lines[@]}"; do
    n=${entry%%$'\t'*}
    line=${entry#*$'\t'}
    case $line in
        \#*) continue ;;
        "cargo test"* | "pip "*)
            printf 'README:%s: run by another CI stage: %s\n' "$n" "$line"
            continue ;;
        "cargo install"* | "cargo run"*)
            if [ "$install" = 0 ]; then
                printf 'README:%s: skipped without --install: %s\n' "$n" "$line"
                continue
            fi
            line="${line/--path ./--path . --root $scratch/install}"
            (cd "$root" && t=$SECONDS && bash -c "$line" >/dev/null &&
                printf 'README:%s: %s s: %s\n' "$n" "$((SECONDS - t))" "$line") || {
                printf 'README:%s: FAILED: %s\n' "$n" "$line"
                failed=$((failed + 1))
            }
            ran=$((ran + 1))
            continue ;;
    esac
    want=0
    if [[ $line =~ \#\ exit\ ([0-9]+) ]]; then want=${BASH_REMATCH[1]}; fi
    set +e
    (cd "$scratch/work" && PATH="$scratch/bin:$PATH" bash -o pipefail -c "$line" >"$scratch/out" 2>"$scratch/err")
    got=$?
    set -e
    ran=$((ran + 1))
    if [ "$got" = "$want" ]; then
        printf 'README:%s: exit %s: %s\n' "$n" "$got" "$line"
    else
        printf 'README:%s: FAILED: exit %s, the README says %s: %s\n' "$n" "$got" "$want" "$line"
        sed 's/^/    stderr: /' "$scratch/err" | head -5
        failed=$((failed + 1))
    fi
done
echo "readme-examples: $ran run, $failed failed"
[ "$failed" = 0 ]
