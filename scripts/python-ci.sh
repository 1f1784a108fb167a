#!/usr/bin/env bash
# The Python stage of CI: build the urlsift extension once into a venv, then
# run python/tests (the API against the CLI, hostile input, Arrow, threads,
# and the PySpark job in local[2] mode).
#
# It skips LOUDLY (exit 0, a banner on stderr) only when the tooling cannot
# be had: no Rust toolchain, no CPython >= 3.9 with venv, or no package
# index for pytest/pyarrow/pyspark. A build or test failure fails the stage.
# Without Java (and no way to install it) only the Spark test is skipped,
# loudly. Under 15 minutes on 2 cores: the extension is built once, the
# CLI oracle incrementally.
#
# Environment: PYTHON (default python3), URLSIFT_PY_VENV (default
# target/python-ci-venv), URLSIFT_BIN (the CLI oracle; default: built here).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

skip() {
    {
        echo "################################################################"
        echo "## python-ci: SKIPPED: $*"
        echo "## The Python package was NOT built or tested."
        echo "################################################################"
    } >&2
    exit 0
}
say() { echo "python-ci: $*" >&2; }

command -v cargo >/dev/null || skip "no Rust toolchain (cargo) on PATH"
PY=${PYTHON:-python3}
command -v "$PY" >/dev/null || skip "no $PY on PATH"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || skip "$PY is older than 3.9"
VENV=${URLSIFT_PY_VENV:-target/python-ci-venv}
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV" 2>/dev/null || skip "$PY cannot make a venv (python3-venv missing)"
fi
VPY=$VENV/bin/python

# The tooling from the package index: without it, nothing can be tested.
nice -n 10 "$VPY" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
nice -n 10 "$VPY" -m pip install -q pytest pyarrow pyspark pandas zstandard \
    || skip "pip could not install pytest, pyarrow, pyspark, pandas (no package index?)"

# The CLI is the tests' oracle.
if [ -z "${URLSIFT_BIN:-}" ]; then
    say "building the CLI oracle (cargo build --release)"
    nice -n 10 cargo build --release --quiet --bin urlsift
    export URLSIFT_BIN=$PWD/target/release/urlsift
fi

# The extension shares the CLI's target directory (and release profile),
# so the dependencies the CLI build compiled are reused.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
say "building and installing the extension (pip install ./python)"
t=$SECONDS
nice -n 10 "$VPY" -m pip install -q --force-reinstall --no-deps ./python
say "extension built in $((SECONDS - t)) s"

# The wheel a cluster's executors get: abi3, tagged manylinux when maturin's
# audit of this build allows it. It reuses the build above.
say "building the wheel (maturin build --release, manylinux audit)"
t=$SECONDS
rm -rf target/wheels
nice -n 10 "$VPY" -m pip install -q "maturin>=1.5,<2"
nice -n 10 "$VENV/bin/maturin" build --release --quiet -m python/Cargo.toml --out target/wheels
wheel=$(ls target/wheels/urlsift-*.whl)
say "wheel $(basename "$wheel") built in $((SECONDS - t)) s"
case $(basename "$wheel") in
    *-abi3-manylinux*) ;;
    *) echo "python-ci: the wheel is not tagged abi3 manylinux: $wheel" >&2; exit 1 ;;
esac
fresh=target/python-ci-wheel-venv
rm -rf "$fresh"
"$PY" -m venv "$fresh"
t=$SECONDS
"$fresh/bin/python" -m pip install -q --no-deps --no-index "$wheel"
say "wheel installed in a fresh venv in $((SECONDS - t)) s"
"$fresh/bin/python" -c 'import urlsift; assert urlsift.urls(b"see http://a.example/x.") == ["http://a.example/x"]'

# Java for the Spark test.
if ! command -v java >/dev/null && [ -z "${JAVA_HOME:-}" ]; then
    if command -v apt-get >/dev/null; then
        say "no java: installing openjdk-17-jre-headless"
        { apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless; } >/dev/null 2>&1 || true
    fi
fi
if command -v java >/dev/null || [ -n "${JAVA_HOME:-}" ]; then
    export URLSIFT_REQUIRE_SPARK=1
else
    {
        echo "################################################################"
        echo "## python-ci: no Java runtime could be had: the Spark test is SKIPPED"
        echo "################################################################"
    } >&2
fi
export PYSPARK_PYTHON=$PWD/$VPY PYSPARK_DRIVER_PYTHON=$PWD/$VPY
case $VPY in /*) export PYSPARK_PYTHON=$VPY PYSPARK_DRIVER_PYTHON=$VPY ;; esac

rc=0
"$VPY" -m pytest python/tests -q -p no:cacheprovider || rc=$?
say "done in $((SECONDS - start)) s (exit $rc)"
exit $rc
