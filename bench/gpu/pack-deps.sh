#!/usr/bin/env bash
# Unpacks the Debian packages the engine + CLI build needs besides LibTorch (yaml-cpp,
# nlohmann-json, CLI11) into .gpu-deps/ (git-ignored), for a GPU machine that has no package
# registry: carry .gpu-deps with the source tree and bench/gpu/run.sh finds it.
# Usage (on a Debian 12 machine with apt): bench/gpu/pack-deps.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=.gpu-deps
rm -rf "$dest" && mkdir -p "$dest/debs"
(cd "$dest/debs" && apt-get download libyaml-cpp0.7 libyaml-cpp-dev nlohmann-json3-dev libcli11-dev)
for f in "$dest"/debs/*.deb; do dpkg -x "$f" "$dest"; done
rm -rf "$dest/debs" "$dest/usr/share/doc"
du -sh "$dest"
