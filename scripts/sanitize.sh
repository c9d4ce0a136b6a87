#!/usr/bin/env bash
# Builds suites with a GCC sanitizer into build-<kind>/ and runs them (docs/reliability.md).
# Usage: scripts/sanitize.sh asan|ubsan|asan+ubsan|tsan [CTEST_REGEX]
#   asan        AddressSanitizer + LeakSanitizer: out-of-bounds, use-after-free, leaks
#   ubsan       UndefinedBehaviorSanitizer: overflow, misaligned or null access, bad casts, shifts
#   asan+ubsan  both in one build (what .ci/run runs)
#   tsan        ThreadSanitizer: data races and lock-order inversions between our threads
# asan/ubsan suites: the engine's torch-free ones (config, run log, decoding, sampling, loader,
# augmentation, multigrid schedule, audit JSON, LR schedule, frame lists, SSv2 labels, JPEG
# frames) and the fuzz corpora with every input a fuzzer crashed on (tst_fuzzcorpus): the code
# that reads files a user hands us.
# tsan suites: every place two of our threads meet: the loader's workers, the metrics writer,
# the demo generator, the engine thread of a training run (start, pause, stop, resume), its event
# queue drained by the studio's timer, and the studio's pre-flight and clip-preview workers.
# LibTorch and Qt are not instrumented (Debian's builds), so findings are ours. Under tsan the
# memory operations Qt, LibTorch and FFmpeg make themselves are not checked
# (ignore_noninstrumented_modules: their own locks are invisible to TSan, so their internal
# thread pools would be reported as racing), our code's accesses are; and one OpenMP thread runs
# LibTorch's kernels (libgomp's barriers are invisible too). scripts/tsan.supp lists what is
# suppressed beyond that, and why. Multi-process runs (c10d/Gloo threads) are not run under tsan.
# Any finding fails the run (halt_on_error).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-}
asan_ubsan_suites=(tst_pyliteral tst_keyschema tst_configloader tst_configwriter tst_yamledit tst_metricslog tst_rundirectory
        tst_runrecord tst_pyslowfastlog tst_sampling tst_videodecoder tst_demodata tst_kineticscsv tst_clipsampler
        tst_videoloader tst_pilops tst_augment tst_clippreview tst_distenv tst_multigridschedule tst_auditjson
        tst_lrschedule tst_lossexplosion tst_pickle tst_fuzzcorpus tst_tensorboardwriter tst_classnames tst_boundedinput tst_appendonlyfile
        tst_framelist tst_ssv2labels tst_jpegframes)
gui=OFF
case "$kind" in
  asan) flags="-fsanitize=address -fno-omit-frame-pointer"
        export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
        suites=("${asan_ubsan_suites[@]}") ;;
  ubsan) flags="-fsanitize=undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
         export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
         suites=("${asan_ubsan_suites[@]}") ;;
  asan+ubsan) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
         export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
         export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
         suites=("${asan_ubsan_suites[@]}") ;;
  tsan) flags="-fsanitize=thread -fno-omit-frame-pointer"
        export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4:ignore_noninstrumented_modules=1:suppressions=$PWD/scripts/tsan.supp"
        export OMP_NUM_THREADS=1
        gui=ON
        suites=(tst_videoloader tst_metricslog tst_demodata tst_clippreview tst_trainer:runs tst_dashboardpanel
                tst_preflightrunner tst_clippreviewpanel) ;;
  *) echo "usage: scripts/sanitize.sh asan|ubsan|asan+ubsan|tsan [CTEST_REGEX]" >&2; exit 2 ;;
esac
regex=${2:-"^($(IFS='|'; echo "${suites[*]}"))$"}
scripts/bootstrap.sh
dir="build-${kind/+/-}"
generator=()
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
cmake -S . -B "$dir" "${generator[@]}" -DAMPSTUDIO_BUILD_GUI=$gui -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags"
# Only what the chosen suites need (the torch-free ones build in minutes).
targets=()
for s in "${suites[@]}"; do
  if [[ "$s" =~ $regex ]]; then targets+=("${s%%:*}"); fi  # a part (suite:part) needs its suite
done
if [ "${#targets[@]}" -eq 0 ]; then targets=(all); fi  # a suite outside the chosen set: build everything
cmake --build "$dir" --parallel "$(nproc)" --target "${targets[@]}"
cd "$dir"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure --timeout 900 -j "$(nproc)" -R "$regex"
