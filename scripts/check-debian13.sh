#!/usr/bin/env bash
# Builds the engine, CLI and tests (GUI off) in a Debian 13 (trixie) chroot and runs the tests
# there: LibTorch 2.6, FFmpeg 7, Qt 6.8, GCC 14 instead of Debian 12's 1.13 / 5 / 6.4 / 12. It is
# how LibTorch 2.x is tried without a GPU machine (bench/gpu/check-headers.sh only compiles).
# Needs root, debootstrap and Debian's mirror; the chroot (~3 GB) is kept for the next run.
# Usage: sudo scripts/check-debian13.sh [CHROOT_DIR]     (default /var/tmp/ampstudio-trixie)
#   DEMO=1 also trains the demo there (bf16, ~5 minutes) and runs bench step.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-/var/tmp/ampstudio-trixie}
[ "$(id -u)" = 0 ] || { echo "check-debian13.sh: needs root (chroot, mount)" >&2; exit 2; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap
if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "== debootstrap trixie into $root"
  debootstrap --variant=minbase trixie "$root" http://deb.debian.org/debian > /tmp/ampstudio-debootstrap.log
fi
mounted=()
cleanup() { for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}" || true; done; }
trap cleanup EXIT
mountpoint -q "$root/proc" || { mount -t proc proc "$root/proc"; mounted+=("$root/proc"); }
mountpoint -q "$root/dev" || { mount --bind /dev "$root/dev"; mounted+=("$root/dev"); }
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The same packages as scripts/bootstrap.sh --no-gui, plus Qt Core/Test for the tests.
chroot "$root" bash -c "export DEBIAN_FRONTEND=noninteractive
  dpkg-query -W libtorch-dev qt6-base-dev ffmpeg >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
    build-essential cmake ninja-build pkg-config libtorch-dev libopenblas0-pthread libgloo-dev libyaml-cpp-dev \
    nlohmann-json3-dev libcli11-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev qt6-base-dev ffmpeg; }"
# The tests read only the repository (tests/data/), so the tracked files are all they need.
mkdir -p "$root/work/main"
echo "== the working tree (tracked files) into $root/work/main"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$root/work/main"
chroot "$root" bash -c "cd /work/main && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMPSTUDIO_BUILD_GUI=OFF > /tmp/configure.log \
  && ninja -C build > /tmp/build.log || { grep -E 'error' -A3 /tmp/build.log | head -60; exit 1; }"
status=0
chroot "$root" bash -c "cd /work/main/build && ctest --output-on-failure" || status=1
if [ "${DEMO:-0}" = 1 ]; then
  chroot "$root" bash -c "cd /work/main && rm -rf demo-data runs/demo-amp && build/app/cli/ampstudio-cli make-demo-data --out demo-data \
    && build/app/cli/ampstudio-cli train --cfg configs/demo/DEMO_X3D_TINY.yaml | grep -E '^\[val|run ' \
    && build/app/cli/ampstudio-cli bench step --cfg configs/demo/DEMO_X3D_TINY.yaml --iterations 20" || status=1
fi
exit $status
