#!/usr/bin/env bash
# The GPU benchmark, for a Linux machine with an NVIDIA GPU and a CUDA build of Python's torch
# package but no package registry. Stages, in this order:
#   build      engine + CLI (GUI off, no FFmpeg: random clips) against the LibTorch inside torch;
#              a build that fails in NCCL (or Gloo) code is retried without it, and says so
#   check      the CUDA correctness checks (ampstudio-cli check cuda: the gradient scaler's fused
#              kernels against an injected inf; float16 / bfloat16 autocast forward + backward of
#              each model family, plain and channels-last-3d)
#   teardown   does the CLI crash at exit with no work done (--version, info)? which CUDA, NCCL and
#              OpenMP libraries does it load? (bench overhead and bench ddp died of SIGSEGV at exit
#              on the H200, docs/benchmarks.md; CUDA builds now skip that teardown with _Exit, and
#              this stage and overhead below keep it, AMPSTUDIO_NORMAL_EXIT=1, to see where it
#              crashes: overhead also logs the loader's fini calls)
#   overhead   bench overhead (the trainer against a bare LibTorch loop, X3D-M batch 16)
#   ddp        bench ddp at world size 1 over each process group the build has (NCCL, Gloo):
#              the gradient reducer's own cost
#   strictfp32 bench precision --precision all --tf32 off on SlowFast 8x8 R50 (batch 32): against
#              IEEE FP32, as the seed's V100 computed it
#   precision  bench precision --precision all (FP32 with PyTorch's TF32 defaults, float16 +
#              scaler, bfloat16; synthetic clips) on SlowFast 8x8 R50 (batch 32) and X3D-M (batch 32)
#   channelslast  the same two with AMP.CHANNELS_LAST_3D
#   actckpt    bench step on MViTv2-S 16x4, FP32 / AMP x MODEL.ACT_CHECKPOINT off / on
#   ava        bench step on PySlowFast's AVA SlowFast 32x2 R50 (detection: the RoI head on 2 random
#              person boxes a clip), batch 8 (its 64 over 8 GPUs), FP32 / float16 / bfloat16; not a
#              default stage: PACK=$OUT/ava.tar.gz bench/gpu/run.sh /tmp/ava build ava
#   maxbatch   the largest batch of SlowFast 8x8 R50 in FP32 and in float16 (doubling from 8,
#              then bisection to 1/16)
#   multigrid  bench multigrid-time on PySlowFast's SLOWFAST_8x8_R50_stepwise_multigrid.yaml (8
#              GPUs' per-GPU shapes, 240,000 clips): the plain and multigrid runs' training steps
#              priced by each shape's step on this GPU, FP32 and float16 (MG_PRECISION, MG_ROUNDS
#              rounds over the shapes, default 2; each shape's time goes to the log as it is
#              measured, so a run cut off at DEADLINE_S keeps what it timed); #15's
#              CUDA table. Ten shapes, each with cuDNN's algorithm search: not a default stage, run it on its own,
#              PACK=$OUT/mg.tar.gz DEADLINE_S=540 bench/gpu/run.sh /tmp/mg build multigrid
# Measured on an H200 (docs/benchmarks.md): build 80 s on 16 cores, check 10 s, one SlowFast
# --precision all 135 s (three processes, each with cuDNN's algorithm search), X3D-M 55 s,
# actckpt 25 s.
# yaml-cpp, nlohmann-json and CLI11 come from the system or from .gpu-deps/ (bench/gpu/pack-deps.sh).
#
# Usage: bench/gpu/run.sh [OUTDIR [STAGE ...]]   (default bench-gpu-out/, every stage but multigrid)
#   BUDGET_S=N   a stage that would start after N seconds is skipped (and says so)
#   DEADLINE_S=N every command after the build is cut off at N seconds (timeout), so the script
#                ends, and packs, before the device's limit on one command
#   PACK=FILE    OUTDIR is packed into FILE (.tar.gz) at the end, whatever happened
#   ITERS, WARMUP, ROUNDS   bench precision's measured / warm-up steps, bench overhead's rounds
# With a lent device (at most 10 minutes a command, 15 a session, 8 files back), one call:
#   PACK=$OUT/gpu.tar.gz BUDGET_S=470 DEADLINE_S=540 ITERS=10 bench/gpu/run.sh /tmp/gpu   (timeout_s 585)
# and, if time is left and the machine is warm (the build is kept), what was skipped:
#   PACK=$OUT/gpu2.tar.gz bench/gpu/run.sh /tmp/gpu2 build STAGE ...
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bench-gpu-out}
shift || true
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build check teardown overhead ddp strictfp32 precision channelslast actckpt maxbatch)  # multigrid: on its own
mkdir -p "$out"
out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
log() { echo "== $* ($(elapsed) s)"; }
# shellcheck disable=SC2317  # called by the EXIT trap
pack() {
  [ -n "${PACK:-}" ] || return 0
  tar czf "$PACK" -C "$(dirname "$out")" "$(basename "$out")" && echo "== packed $out into $PACK"
}
trap pack EXIT
status=0
wanted() { local s; for s in "${stages[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
# True when stage $1 is asked for and the budget leaves time to start it.
begin() {
  wanted "$1" || return 1
  if [ -n "${BUDGET_S:-}" ] && [ "$(elapsed)" -ge "$BUDGET_S" ]; then
    log "$1: skipped, past BUDGET_S=$BUDGET_S"; echo "$1 skipped at $(elapsed) s" >> "$out/skipped.txt"; return 1
  fi
  log "$1"
}
# Runs "$@", cut off at DEADLINE_S (exit 124, noted in cut.txt).
limited() {
  [ -n "${DEADLINE_S:-}" ] || { "$@"; return; }
  local left=$(( DEADLINE_S - $(elapsed) ))
  [ "$left" -gt 5 ] || { echo "not started, past DEADLINE_S: $*" | tee -a "$out/cut.txt"; return 124; }
  local rc=0
  timeout -k 5 "$left" "$@" || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "cut off at DEADLINE_S=$DEADLINE_S: $*" | tee -a "$out/cut.txt"; fi
  return "$rc"
}

log "torch and the GPU"
"$py" - <<'PY' | tee "$out/torch.txt"
import torch
assert torch.cuda.is_available(), "torch sees no CUDA device"
print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(),
      "device", torch.cuda.get_device_name(0), "cxx11_abi", int(torch._C._GLIBCXX_USE_CXX11_ABI))
PY
# LibTorch's CMake config looks for the CUDA toolkit through nvcc.
command -v nvcc >/dev/null || { [ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || true
  "${CXX:-c++}" --version | head -1 || true; cmake --version | head -1 || true; nvcc --version | tail -2 || true
  echo "cpu cores $(nproc)"; } 2>&1 | tee -a "$out/torch.txt"
torch_prefix=$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)')
prefix="$torch_prefix"
deps="$PWD/.gpu-deps"
if [ -d "$deps/usr" ]; then
  prefix="$prefix;$deps/usr"
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
build=${AMPSTUDIO_GPU_BUILD_DIR:-build-gpu}
cli="$build/app/cli/ampstudio-cli"

# configure_and_build NCCL GLOO: ON/OFF/AUTO each; logs to $out/build.log.
configure_and_build() {
  echo "== configure with NCCL=$1 Gloo=$2" >> "$out/build.log"
  cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DAMPSTUDIO_BUILD_GUI=OFF -DAMPSTUDIO_WITH_FFMPEG=OFF \
    -DAMPSTUDIO_WITH_TENSORBOARD=OFF -DAMPSTUDIO_WITH_NCCL="$1" -DAMPSTUDIO_WITH_GLOO="$2" -DCMAKE_PREFIX_PATH="$prefix" \
    >> "$out/build.log" 2>&1 &&
    cmake --build "$build" --target ampstudio-cli --parallel "$(nproc)" >> "$out/build.log" 2>&1
}
if begin build; then
  : > "$out/build.log"
  built=""
  for variant in "AUTO AUTO" "OFF AUTO" "OFF OFF"; do
    # shellcheck disable=SC2086
    if configure_and_build $variant; then built=$variant; break; fi
    echo "build with NCCL/Gloo = $variant failed:"; grep -E "error" -A3 "$out/build.log" | tail -40
    # Only a failure in NCCL or Gloo code is worth a build without them (each is a full rebuild).
    grep -E "error" "$out/build.log" | grep -qiE "nccl|gloo" || break
  done
  [ -n "$built" ] || { log "build failed: $out/build.log"; exit 1; }
  [ "$built" = "AUTO AUTO" ] || echo "built with NCCL/Gloo = $built after the fuller build failed (see build.log)" | tee "$out/build-note.txt"
  grep -E "AMP Studio:" "$out/build.log" | tail -2
  "$cli" info | tee "$out/info.txt"
fi
[ -x "$cli" ] || { log "no $cli: run the build stage first"; exit 1; }
[ -s "$out/info.txt" ] || "$cli" info > "$out/info.txt"

if begin check; then
  limited "$cli" check cuda --configs configs 2>&1 | tee "$out/check-cuda.txt" || status=1
fi

bench() {  # stage, name, config, batch, extra arguments (options, then KEY VALUE ...)
  local stage=$1 name=$2 cfg=$3 batch=$4; shift 4
  begin "$stage" || return 0
  log "bench precision: $name, batch $batch"
  limited "$cli" bench precision --cfg "$cfg" --synthetic --batch "$batch" --iters "${ITERS:-20}" --warmup "${WARMUP:-3}" "$@" NUM_GPUS 1 \
    DATA_LOADER.NUM_WORKERS 0 2>&1 | tee "$out/bench-$name.txt" || status=1
}
if begin teardown; then
  {
    for _ in 1 2 3; do "$cli" --version > /dev/null; echo "--version: exit $?"; done
    AMPSTUDIO_NORMAL_EXIT=1 "$cli" info > /dev/null; echo "info, normal exit: exit $?"
    "$cli" info > /dev/null; echo "info: exit $?"
    ldd "$cli" | grep -Ei 'omp|nccl|cudart|nvshmem|cupti|stdc\+\+' || true
  } > "$out/teardown.txt" 2>&1
  cat "$out/teardown.txt"
fi
if begin overhead; then
  log "bench overhead: X3D-M, batch 16, trainer vs a bare LibTorch loop (LD_DEBUG=files: the libraries' fini calls)"
  mkdir -p "$out/ld-overhead"
  AMPSTUDIO_NORMAL_EXIT=1 LD_DEBUG=files LD_DEBUG_OUTPUT="$out/ld-overhead/ld" limited "$cli" bench overhead --cfg configs/Kinetics/X3D_M.yaml --iters 30 --warmup 5 --rounds "${ROUNDS:-5}" NUM_GPUS 1 \
    TRAIN.BATCH_SIZE 16 DATA_LOADER.NUM_WORKERS 0 2>&1 | tee "$out/bench-overhead.txt" || status=1
  for f in "$out"/ld-overhead/ld.*; do  # one per process (timeout's too): the last libraries finalised
    [ -f "$f" ] && { echo "$f:"; grep "calling fini" "$f" | tail -4; }
  done | tee -a "$out/teardown.txt"
fi
backends=()
grep -qE "c10d NCCL|and NCCL" "$out/info.txt" && backends+=(nccl)
grep -q "c10d Gloo" "$out/info.txt" && backends+=(gloo)
for backend in "${backends[@]}"; do  # the gradient reducer over a one-rank group: the backend's own cost
  begin ddp || break
  log "bench ddp: X3D-M, batch 16, one GPU synchronised through $backend at world size 1"
  limited "$cli" bench ddp --cfg configs/Kinetics/X3D_M.yaml --processes 1 --batch 16 --iters 10 --warmup 3 NUM_GPUS 1 \
    DIST_BACKEND "$backend" DATA_LOADER.NUM_WORKERS 0 2>&1 | tee "$out/bench-ddp-$backend.txt" || status=1
done
sf=configs/Kinetics/SLOWFAST_8x8_R50.yaml
bench strictfp32 slowfast-8x8-r50-ieee-fp32 $sf 32 --precision all --tf32 off
bench precision slowfast-8x8-r50 $sf 32 --precision all
bench precision x3d-m configs/Kinetics/X3D_M.yaml 32 --precision all
bench channelslast slowfast-8x8-r50-channels-last $sf 32 --precision all AMP.CHANNELS_LAST_3D True
bench channelslast x3d-m-channels-last configs/Kinetics/X3D_M.yaml 32 --precision all AMP.CHANNELS_LAST_3D True
if begin actckpt; then
  log "bench step: MViTv2-S 16x4, batch 8, FP32 / AMP x activation checkpointing off / on"
  limited "$cli" bench step --cfg configs/Kinetics/MVITv2_S_16x4.yaml --batch 8 --iterations 10 --warmup 3 --precision both \
    --act-checkpoint both NUM_GPUS 1 2>&1 | tee "$out/bench-actckpt-mvitv2-s.txt" || status=1
fi
bench maxbatch slowfast-8x8-r50-maxbatch $sf 8 --precision both --max-batch
if begin ava; then
  log "bench step: AVA SlowFast 32x2 R50, batch 8, FP32 / float16 / bfloat16"
  limited "$cli" bench step --cfg configs/AVA/SLOWFAST_32x2_R50_SHORT.yaml --batch 8 --iterations 10 --warmup 3 \
    --precision all NUM_GPUS 1 2>&1 | tee "$out/bench-ava-slowfast-32x2-r50.txt" || status=1
fi
if begin multigrid; then
  log "bench multigrid-time: SlowFast 8x8 R50, PySlowFast's stepwise multigrid schedule, its 8 GPUs' per-GPU shapes timed on this one"
  limited "$cli" bench multigrid-time --cfg tests/data/multigrid/SLOWFAST_8x8_R50_stepwise_multigrid.yaml --samples 240000 \
    --precision "${MG_PRECISION:-both}" --iterations "${MG_ITERS:-5}" --warmup 2 --rounds "${MG_ROUNDS:-2}" 2>&1 | tee "$out/bench-multigrid-time-slowfast-8x8-r50.txt" || status=1
fi
log "done (status $status); results in $out/"
exit $status
