#!/usr/bin/env bash
# Compiles (syntax only) every LibTorch-including engine file against another LibTorch's headers,
# with the CUDA code paths switched on, so LibTorch 2.x API changes show up on a machine that has
# neither that LibTorch nor a GPU. It needs the CUDA toolkit's headers (cuda_runtime.h ...).
#
# Usage: bench/gpu/check-headers.sh LIBTORCH_INCLUDE_DIR [CUDA_INCLUDE_DIR]
#   LIBTORCH_INCLUDE_DIR holds ATen/, c10/ and torch/ (e.g. Debian trixie's libtorch-dev 2.6,
#   unpacked: dpkg-deb -x libtorch-dev_2.6.0+dfsg-7_amd64.deb DIR, then DIR/usr/include; or
#   torch/include of a Python torch package). CUDA_INCLUDE_DIR defaults to /usr/local/cuda/include.
#
# Without a CUDA machine, all from Debian trixie (checked 2026-12: 23 of 23 files, with NCCL):
#   apt-get download (with a private trixie main/contrib/non-free sources list and -o Dir::...
#   options) libtorch-dev (2.6.0+dfsg-7), nvidia-cuda-dev (12.4), libcu++-dev (nv/target, from
#   cccl), libnccl-dev (contrib); dpkg-deb -x all four into one DIR; then
#   bench/gpu/check-headers.sh DIR/usr/include DIR/usr/include   (nccl.h is found beside the CUDA
#   headers). About 9 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
inc=${1:?usage: $0 LIBTORCH_INCLUDE_DIR [CUDA_INCLUDE_DIR]}
cuda=${2:-/usr/local/cuda/include}
[ -f "$inc/torch/csrc/api/include/torch/torch.h" ] || { echo "$inc: no torch/csrc/api/include/torch/torch.h here" >&2; exit 2; }
[ -f "$cuda/cuda_runtime.h" ] || { echo "$cuda: no cuda_runtime.h (pass the CUDA toolkit's include folder)" >&2; exit 2; }
cxx=${CXX:-c++}
# The engine's LibTorch sources as CMake lists them (one per line after add_library(ampstudio_engine).
mapfile -t files < <(awk '/^add_library\(ampstudio_engine/{on=1; next} on && /^\)/{exit} on{print "engine/" $1}' engine/CMakeLists.txt)
[ "${#files[@]}" -gt 0 ] || { echo "no engine sources found in engine/CMakeLists.txt" >&2; exit 2; }
# The Debian package is a CPU build and lacks the generated c10/cuda/impl/cuda_cmake_macros.h.
# The c10d paths too: Gloo always (as the engine's CMakeLists), NCCL when nccl.h can be found
# (NCCL_INCLUDE_DIR, else beside the CUDA headers or in /usr/include).
nccl_inc=${NCCL_INCLUDE_DIR:-}
for d in "$nccl_inc" "$cuda" /usr/include; do [ -n "$d" ] && [ -f "$d/nccl.h" ] && { nccl_inc=$d; break; }; done
dist=(-DUSE_C10D_GLOO=1)
if [ -n "$nccl_inc" ] && [ -f "$nccl_inc/nccl.h" ]; then dist+=(-DUSE_C10D_NCCL=1 -DAMPSTUDIO_WITH_NCCL=1); nccl_note="with NCCL";
else nccl_note="without NCCL (no nccl.h: set NCCL_INCLUDE_DIR)"; fi
flags=(-std=c++17 -fsyntax-only -DAMPSTUDIO_VERSION=\"check\" -DAMPSTUDIO_WITH_CUDA=1 -DC10_CUDA_NO_CMAKE_CONFIGURE_FILE "${dist[@]}"
       -D_GLIBCXX_USE_CXX11_ABI=1 -Iengine -isystem "$inc/torch/csrc/api/include" -Wall -Wextra -Wno-unused-parameter)
# /usr/include is searched anyway; naming it with -isystem would break libstdc++'s #include_next.
[ "$(realpath "$inc")" = /usr/include ] || flags+=(-isystem "$inc")
flags+=(-isystem "$cuda")
[ -n "$nccl_inc" ] && [ "$nccl_inc" != "$cuda" ] && [ "$(realpath "$nccl_inc")" != /usr/include ] && flags+=(-isystem "$nccl_inc")
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
export cxx logs
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -I{} bash -c \
  'if "$cxx" "$@" {} > "$logs/$(basename {}).log" 2>&1; then echo "ok      {}"; else echo "FAILED  {}"; fi' _ "${flags[@]}" | tee "$logs/summary"
failed=$(grep -c '^FAILED' "$logs/summary" || true)
for f in "$logs"/*.cpp.log; do
  if grep -qE 'error|warning' "$f"; then echo "== $(basename "$f" .log)"; grep -E 'error|warning' "$f" | head -20; fi
done
echo "$(( ${#files[@]} - failed )) of ${#files[@]} engine files compile against $inc, $nccl_note"
[ "$failed" -eq 0 ]
