#!/usr/bin/env bash
# Installs what is missing, builds, and starts AMP Studio on its built-in demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/build.sh
build_dir=${AMPSTUDIO_BUILD_DIR:-build}
demo_cfg=configs/demo/DEMO_X3D_TINY.yaml
cli="$build_dir/app/cli/ampstudio-cli"
# (Re)write the demo dataset when it is missing or was written by an older generator.
if [ ! -f demo-data/train.csv ] || ! grep -Eq '"version": 4([^0-9]|$)' demo-data/demo-data.json 2>/dev/null; then
  echo "== Writing the demo dataset to demo-data/ (8 motion classes, 1,200 clips, about 10 s) =="
  rm -rf demo-data
  "$cli" make-demo-data --out demo-data
fi
if [ -x "$build_dir/app/gui/ampstudio" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec "$build_dir/app/gui/ampstudio" --demo "$demo_cfg"
fi
echo "== No display (or no GUI build): the CLI demo trains the demo model =="
"$cli" info
echo
exec "$cli" train --cfg "$demo_cfg"
