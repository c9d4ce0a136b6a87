#!/usr/bin/env bash
# Configures and builds AMP Studio into build/ (or $AMPSTUDIO_BUILD_DIR).
# Usage: scripts/build.sh [--no-gui] [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${AMPSTUDIO_BUILD_DIR:-build}
gui=ON
args=()
for a in "$@"; do
  if [ "$a" = --no-gui ]; then gui=OFF; else args+=("$a"); fi
done
generator=()
# A new build folder uses Ninja when present; an existing one keeps its generator.
if [ ! -f "$build_dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
cmake -S . -B "$build_dir" "${generator[@]}" -DAMPSTUDIO_BUILD_GUI=$gui "${args[@]}"
cmake --build "$build_dir" --parallel "$(nproc)"
