#!/usr/bin/env bash
# Installs the Debian 12 packages AMP Studio builds and runs with. Idempotent: packages that are
# already installed are skipped, and nothing is downloaded when all are present.
# Usage: scripts/bootstrap.sh [--gui|--no-gui]   (default --gui)
set -euo pipefail

want_gui=1
for arg in "$@"; do
  case "$arg" in
    --gui) want_gui=1 ;;
    --no-gui) want_gui=0 ;;
    *) echo "bootstrap.sh: unknown option '$arg' (use --gui or --no-gui)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build ccache pkg-config git clang-format
  libtorch-dev libopenblas0-pthread libgloo-dev
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libjpeg62-turbo-dev
  libfreetype-dev libfontconfig-dev fonts-dejavu-core
  python3-av python3-numpy python3-yaml ffmpeg
  protobuf-compiler libprotobuf-dev libisal-dev
)
if [ "$want_gui" = 1 ]; then
  packages+=(qt6-base-dev qt6-base-dev-tools libqcustomplot-dev libgl-dev xvfb xauth
             qt6-svg-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "bootstrap: all ${#packages[@]} packages present"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
