#!/usr/bin/env bash
# The GPU benchmark in one command, for a Linux machine with an NVIDIA GPU and a CUDA build of
# Python's torch package but no package registry:
#   1. builds engine + CLI (GUI off, no FFmpeg: random clips) against the LibTorch inside torch;
#   2. runs the CUDA correctness checks (ampstudio-cli check cuda: the gradient scaler's fused
#      kernels against an injected inf; float16 / bfloat16 autocast forward + backward of each
#      model family, plain and channels-last-3d);
#   3. runs bench precision (FP32 vs AMP, synthetic clips) on SlowFast 8x8 R50 and X3D-M at
#      batch 32-64, printing the table researchers quote;
#   4. runs bench overhead (the trainer against a bare LibTorch loop, X3D-M batch 16);
#   5. runs bench ddp at world size 1 over NCCL and over Gloo (the gradient reducer's own cost).
# yaml-cpp, nlohmann-json and CLI11 come from the system or from .gpu-deps/ (bench/gpu/pack-deps.sh).
# Usage: bench/gpu/run.sh [OUTDIR]    (results and logs go to OUTDIR, default bench-gpu-out/)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bench-gpu-out}
mkdir -p "$out"
py=${PYTHON:-python3}
start=$(date +%s)
log() { echo "== $* ($(( $(date +%s) - start )) s)"; }

log "torch and the GPU"
"$py" - <<'PY' | tee "$out/torch.txt"
import torch
assert torch.cuda.is_available(), "torch sees no CUDA device"
print("torch", torch.__version__, "cuda", torch.version.cuda, "device", torch.cuda.get_device_name(0),
      "cxx11_abi", int(torch._C._GLIBCXX_USE_CXX11_ABI))
PY
torch_prefix=$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)')
prefix="$torch_prefix"
deps="$PWD/.gpu-deps"
if [ -d "$deps/usr" ]; then
  prefix="$prefix;$deps/usr"
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
build=${AMPSTUDIO_GPU_BUILD_DIR:-build-gpu}

log "configure and build engine + CLI"
cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DAMPSTUDIO_BUILD_GUI=OFF -DAMPSTUDIO_WITH_FFMPEG=OFF -DAMPSTUDIO_WITH_TENSORBOARD=OFF \
  -DCMAKE_PREFIX_PATH="$prefix" > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
cmake --build "$build" --target ampstudio-cli --parallel "$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -60; exit 1; }
cli="$build/app/cli/ampstudio-cli"
"$cli" info | tee "$out/info.txt"

log "CUDA correctness checks"
status=0
"$cli" check cuda --configs configs | tee "$out/check-cuda.txt" || status=1

bench() {  # name, config, batch, extra KEY VALUE ...
  local name=$1 cfg=$2 batch=$3; shift 3
  log "bench precision: $name, batch $batch"
  "$cli" bench precision --cfg "$cfg" --synthetic --batch "$batch" --iters "${ITERS:-20}" --warmup 3 NUM_GPUS 1 \
    DATA_LOADER.NUM_WORKERS 0 "$@" 2>&1 | tee "$out/bench-$name.txt" || status=1
}
bench slowfast-8x8-r50 configs/Kinetics/SLOWFAST_8x8_R50.yaml 32
bench x3d-m configs/Kinetics/X3D_M.yaml 64
bench x3d-m-channels-last configs/Kinetics/X3D_M.yaml 64 AMP.CHANNELS_LAST_3D True

log "bench overhead: X3D-M, batch 16, trainer vs a bare LibTorch loop"
"$cli" bench overhead --cfg configs/Kinetics/X3D_M.yaml --iters 30 --warmup 5 --rounds 5 NUM_GPUS 1 \
  TRAIN.BATCH_SIZE 16 DATA_LOADER.NUM_WORKERS 0 2>&1 | tee "$out/bench-overhead.txt" || status=1
for backend in nccl gloo; do  # the gradient reducer over a one-rank group: the backend's own cost
  log "bench ddp: X3D-M, batch 16, one GPU synchronised through $backend at world size 1"
  "$cli" bench ddp --cfg configs/Kinetics/X3D_M.yaml --processes 1 --batch 16 --iters 10 --warmup 3 NUM_GPUS 1 \
    DIST_BACKEND "$backend" DATA_LOADER.NUM_WORKERS 0 2>&1 | tee "$out/bench-ddp-$backend.txt" || status=1
done
log "done (status $status); results in $out/"
exit $status
