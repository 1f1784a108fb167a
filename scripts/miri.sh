#!/usr/bin/env bash
# Run the small, Miri-sized tests (the `small_tests` modules of classify and
# extract: every ISA Miri can run against scalar, short inputs at every
# alignment, chunked against whole) under Miri, which checks the unsafe SIMD
# loads for undefined behaviour (out-of-bounds reads, misaligned access).
#
#   scripts/miri.sh
#
# Installs the nightly toolchain's miri and rust-src components when missing;
# skips LOUDLY (exit 0) when they cannot be had. Miri runs x86-64's SSE2
# baseline and scalar; a second pass enables AVX2 at compile time so the
# AVX2 path runs under Miri too (AVX-512 intrinsics are not all supported by
# Miri yet).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly miri --version >/dev/null 2>&1; then
    echo "miri: installing nightly miri + rust-src (a few minutes)" >&2
    if ! rustup toolchain install nightly --profile minimal --component miri,rust-src >&2; then
        echo "miri: SKIPPED: cannot install nightly miri" >&2
        exit 0
    fi
fi
export CARGO_TARGET_DIR=target/miri
# No mmap, no parquet in these tests; isolation off is not needed.
cargo +nightly miri test -p urlsift-core --lib small_tests
if [ "$(uname -m)" = x86_64 ]; then
    echo "miri: again with AVX2 enabled at compile time" >&2
    RUSTFLAGS="-C target-feature=+avx2,+bmi1,+bmi2,+popcnt,+ssse3" \
        cargo +nightly miri test -p urlsift-core --lib small_tests
fi
