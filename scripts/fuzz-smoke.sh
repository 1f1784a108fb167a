#!/usr/bin/env bash
# Smoke-run every cargo-fuzz target in fuzz/ for SECONDS each (default 60).
#
#   scripts/fuzz-smoke.sh [SECONDS]
#
# Installs cargo-fuzz if missing. cargo-fuzz needs nightly flags
# (-Zsanitizer=address); on a stable toolchain RUSTC_BOOTSTRAP=1 unlocks them.
# If the address sanitizer cannot be built, falls back to --sanitizer none.
# Seed corpora come from the repo's own test data and are written into
# fuzz/corpus/TARGET/ (gitignored). Crash inputs land in fuzz/artifacts/TARGET/.
set -euo pipefail

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
for p in glob.glob(os.path.join(root, "tests/data/conformance/**/*.json"), recursive=True):
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

cases = json.load(open(os.path.join(root, "tests/data/extract_cases.json"), encoding="utf-8"))
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

failed=()
for t in "${TARGETS[@]}"; do
    echo "=== fuzz-smoke: $t for ${SECONDS_EACH}s ==="
    # The fuzzer's CPU seconds (bash's `time` counts the child processes):
    # on a shared machine, wall time overstates how much fuzzing was done.
    TIMEFORMAT="fuzz-smoke: $t: wall %R s, cpu %U s user + %S s sys"
    time {
        if ! cargo fuzz run -O "${SAN[@]}" "$t" "corpus/$t" -- \
            -max_total_time="$SECONDS_EACH" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1; then
            failed+=("$t")
        fi
    }
done
if ((${#failed[@]})); then
    echo "fuzz-smoke: FAILED: ${failed[*]} (inputs under fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzz-smoke: all targets ran ${SECONDS_EACH}s without a crash"
