#!/usr/bin/env bash
# Fuzzes one target with libFuzzer (clang 14, AddressSanitizer + UndefinedBehaviorSanitizer).
# Usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options]   TARGET: pyliteral config metrics pickle video ava
# The corpus grows in build-fuzz/corpus/TARGET (seeded from tests/fuzz/TARGET); an input that
# crashes, hangs (10 s), leaks, or allocates more than 256 MB at once (a declared size believed)
# or drives the process past 1 GB (amplification; ASan's shadow memory and the fuzzer's own
# corpus make an instrumented process's RSS 3-4x an input's real cost, so the whole-process
# 256 MB goal is measured without sanitizers by bench/hostile/run.sh) is written to
# tests/fuzz/TARGET/crash-* (or timeout-*, leak-*, oom-*): fix the bug and commit the input with
# the fix, tst_fuzzcorpus replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-}
seconds=${2:-}
case "$target" in pyliteral|config|metrics|pickle|video|ava) ;; *)
  echo "usage: scripts/fuzz.sh pyliteral|config|metrics|pickle|video|ava SECONDS [libFuzzer options]" >&2; exit 2 ;;
esac
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a whole number" >&2; exit 2; }
shift 2
scripts/bootstrap.sh --no-gui
missing=()
for p in clang-14 libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "fuzz.sh: installing ${missing[*]}"
  sudo=(); [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
dir=build-fuzz
generator=()
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" "${generator[@]}" -DAMPSTUDIO_LIBFUZZER=ON -DAMPSTUDIO_BUILD_GUI=OFF \
  -DAMPSTUDIO_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$dir" --parallel "$(nproc)" --target "fuzz_$target"
seeds=("tests/fuzz/$target")
case "$target" in
  config) seeds+=(configs/demo) ;;
  pickle) seeds+=(tests/data/checkpoints) ;;
  video) seeds+=(tests/data/videos) ;;
esac
mkdir -p "$dir/corpus/$target"
# Long enough for the shapes that amplify (nested aliases, declared sizes, long lines, deep
# nesting need tens of KB); the seeds hold such inputs.
max_len=65536
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=32"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
exec "$dir/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -malloc_limit_mb=256 -max_len="$max_len" \
  -artifact_prefix="tests/fuzz/$target/" -print_final_stats=1 "$@" "$dir/corpus/$target" "${seeds[@]}"
