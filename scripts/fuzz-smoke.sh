#!/usr/bin/env bash
# Smoke-run every cargo-fuzz target in fuzz/ for SECONDS each (default 60).
#
#   scripts/fuzz-smoke.sh [--cpu] [SECONDS]
#
# SECONDS is wall time per target; with --cpu it is CPU time: each target is
# run again (on its grown corpus) until it has used SECONDS of CPU, which on
# a shared machine can take much longer than SECONDS of wall time.
#
# Installs cargo-fuzz if missing. cargo-fuzz needs nightly flags
# (-Zsanitizer=address); on a stable toolchain RUSTC_BOOTSTRAP=1 unlocks them.
# If the address sanitizer cannot be built, falls back to --sanitizer none.
# Seed corpora come from the repo's own test data and are written into
# fuzz/corpus/TARGET/ (gitignored). Crash inputs land in fuzz/artifacts/TARGET/.
set -euo pipefail

CPU_MODE=0
if [ "${1:-}" = "--cpu" ]; then
    CPU_MODE=1
    shift
fi
SECONDS_EACH="${1:-60}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT/fuzz"
export RUSTC_BOOTSTRAP=1
TARGETS=(parse normalize resolve extract mail)

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz-smoke: cargo-fuzz not found, installing it (a few minutes)" >&2
    if ! cargo install cargo-fuzz; then
        echo "fuzz-smoke: SKIPPED: cannot install cargo-fuzz" >&2
        exit 0
    fi
fi

# --- seed corpora -----------------------------------------------------------
seed() {
    python3 - "$ROOT" <<'PY'
import glob, hashlib, json, os, sys
root = sys.argv[1]
corpus = os.path.join(root, "fuzz", "corpus")

def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def strings(v, out):
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, list):
        for x in v:
            strings(x, out)
    elif isinstance(v, dict):
        for x in v.values():
            strings(x, out)

uris = []
for p in glob.glob(os.path.join(root, "crates/uri/tests/data/conformance/**/*.json"), recursive=True):
    try:
        strings(json.load(open(p, encoding="utf-8")), uris)
    except Exception as e:
        print(f"fuzz-smoke: skipping {p}: {e}", file=sys.stderr)
uris = sorted({u for u in uris if len(u) <= 512})
for u in uris:
    put("parse", u)
    put("normalize", u)
base = "http://a/b/c/d;p?q"
for i, u in enumerate(uris):
    put("resolve", base + "\n" + u)
    if i % 7 == 0 and ":" in u:
        put("resolve", u + "\n" + uris[(i * 31) % len(uris)])

cases = json.load(open(os.path.join(root, "crates/core/tests/data/extract_cases.json"), encoding="utf-8"))
for i, c in enumerate(cases):
    put("extract", bytes([i % 256]) + c["input"].encode("utf-8", "surrogatepass"))
sample = open(os.path.join(root, "datasets/sample.txt"), "rb").read()
step = max(1, len(sample) // 64)
for i in range(0, len(sample), step):
    put("extract", bytes([(i // step * 37) % 256]) + sample[i:i + 4096])

for p in glob.glob(os.path.join(root, "tests/data/mail/**"), recursive=True):
    if os.path.isfile(p) and not p.endswith(".md") and os.path.getsize(p) <= 1 << 20:
        put("mail", open(p, "rb").read())
mbox = os.path.join(root, "datasets/sample.mbox")
if os.path.exists(mbox):
    put("mail", open(mbox, "rb").read())
for t in ("parse", "normalize", "resolve", "extract", "mail"):
    d = os.path.join(corpus, t)
    print(f"fuzz-smoke: {t}: {len(os.listdir(d)) if os.path.isdir(d) else 0} corpus files")
PY
}
seed

SAN=()
if ! cargo fuzz build -O; then
    echo "fuzz-smoke: address sanitizer build failed; retrying with --sanitizer none" >&2
    SAN=(--sanitizer none)
    cargo fuzz build -O "${SAN[@]}"
fi

# CPU_NOW := CPU seconds (user + sys) used so far by this shell's finished
# children. `times` must run in this shell, not in a subshell ($(...) or a
# pipeline), whose children are others.
TIMES_FILE=$(mktemp)
trap 'rm -f "$TIMES_FILE"' EXIT
read_cpu() {
    times >"$TIMES_FILE"
    CPU_NOW=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }' "$TIMES_FILE")
}

fuzz_once() { # TARGET SECONDS
    cargo fuzz run -O "${SAN[@]}" "$1" "corpus/$1" -- \
        -max_total_time="$2" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1
}

failed=()
for t in "${TARGETS[@]}"; do
    if ((CPU_MODE)); then
        echo "=== fuzz-smoke: $t until ${SECONDS_EACH} CPU seconds ==="
        read_cpu
        start_cpu=$CPU_NOW
        start_wall=$SECONDS
        used=0
        rounds=0
        while ((used < SECONDS_EACH)); do
            left=$((SECONDS_EACH - used))
            ((left < 30)) && left=30
            rounds=$((rounds + 1))
            if ! fuzz_once "$t" "$left"; then
                failed+=("$t")
                break
            fi
            read_cpu
            used=$((CPU_NOW - start_cpu))
        done
        echo "fuzz-smoke: $t: cpu ${used} s (user + sys) in ${rounds} runs, wall $((SECONDS - start_wall)) s"
        continue
    fi
    echo "=== fuzz-smoke: $t for ${SECONDS_EACH}s ==="
    # The fuzzer's CPU seconds (bash's `time` counts the child processes):
    # on a shared machine, wall time overstates how much fuzzing was done.
    TIMEFORMAT="fuzz-smoke: $t: wall %R s, cpu %U s user + %S s sys"
    time {
        if ! fuzz_once "$t" "$SECONDS_EACH"; then
            failed+=("$t")
        fi
    }
done
if ((${#failed[@]})); then
    echo "fuzz-smoke: FAILED: ${failed[*]} (inputs under fuzz/artifacts/)" >&2
    exit 1
fi
if ((CPU_MODE)); then
    echo "fuzz-smoke: all targets ran ${SECONDS_EACH} CPU seconds without a crash"
else
    echo "fuzz-smoke: all targets ran ${SECONDS_EACH}s without a crash"
fi
