#!/usr/bin/env bash
# How fast can one core read a file through a memory mapping at all? The
# floor under any single-threaded scan, urlsift's included, measured beside
# urlsift and rg in the same run.
#
#   scripts/read-floor.sh FILE [RUNS]
#
# Builds (with the system C compiler, into a temporary directory) a minimal
# loop that maps FILE, advises sequential access, and compares every byte
# with ':' using AVX2 (SSE2 where AVX2 is missing), counting the matches:
# once with no software prefetch, once asking for the cache line 8 KiB ahead
# (what urlsift's candidate pass does). Then prints hyperfine's mean and
# median for
#   floor (no prefetch), floor (prefetch 8 KiB), urlsift -j1 -c, rg -o -c
# all on FILE (RUNS each, default 20). Needs cc and hyperfine; rg is skipped
# when missing. x86-64 only.
set -euo pipefail

if [ $# -lt 1 ]; then
    sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi
file=$1
runs=${2:-20}
cd "$(dirname "$0")/.."

command -v cc >/dev/null || { echo "read-floor: needs a C compiler (cc)" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "read-floor: needs hyperfine" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/floor.c" <<'EOF'
#include <immintrin.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

int main(int argc, char **argv) {
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) { perror(argv[1]); return 2; }
    size_t n = (size_t)st.st_size, ahead = argc > 2 ? (size_t)atol(argv[2]) : 0;
    const unsigned char *p = mmap(0, n, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) { perror("mmap"); return 2; }
    madvise((void *)p, n, MADV_SEQUENTIAL);
    long count = 0;
    size_t i = 0;
#ifdef __AVX2__
    __m256i c = _mm256_set1_epi8(':');
    for (; i + 64 <= n; i += 64) {
        if (ahead) _mm_prefetch((const char *)p + i + ahead, _MM_HINT_T0);
        __m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
        count += __builtin_popcount(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, c)));
        count += __builtin_popcount(_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, c)));
    }
#else
    __m128i c = _mm_set1_epi8(':');
    for (; i + 16 <= n; i += 16) {
        if (ahead && i % 64 == 0) _mm_prefetch((const char *)p + i + ahead, _MM_HINT_T0);
        __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        count += __builtin_popcount(_mm_movemask_epi8(_mm_cmpeq_epi8(a, c)));
    }
#endif
    for (; i < n; i++) count += p[i] == ':';
    printf("%ld\n", count);
    return 0;
}
EOF
arch_flags=-msse2
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then arch_flags=-mavx2; fi
cc -O2 "$arch_flags" -o "$tmp/floor" "$tmp/floor.c"

cargo build --profile release-lto --quiet
bin=target/release-lto/urlsift
cmds=("$tmp/floor $file" "$tmp/floor $file 8192" "$bin -j1 -c $file")
names=("floor, no prefetch" "floor, prefetch 8 KiB" "urlsift -j1 -c")
if command -v rg >/dev/null; then
    cmds+=("rg -o -c 'https?://[^\\s<>\"]+' $file")
    names+=("rg -o -c")
fi
hyperfine -N -w 3 -r "$runs" --export-json "$tmp/out.json" "${cmds[@]}" >/dev/null
python3 - "$tmp/out.json" "${names[@]}" <<'PY'
import json, statistics, sys
res = json.load(open(sys.argv[1]))["results"]
print("| command | mean ms | median ms |")
print("|---|---:|---:|")
for name, r in zip(sys.argv[2:], res):
    print(f"| {name} | {r['mean'] * 1e3:.2f} | {statistics.median(r['times']) * 1e3:.2f} |")
PY
