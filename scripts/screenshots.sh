#!/usr/bin/env bash
# Takes the README's screenshots of the studio under Xvfb (docs/images/*.png):
#   config.png     the demo config in the form and the YAML editor
#   dashboard.png  the demo training live, about 70 s in (its own throw-away run folder)
#   compare.png    runs/demo-fp32 against runs/demo-amp (train both first:
#                  ampstudio-cli train --cfg configs/demo/DEMO_X3D_TINY_FP32.yaml, then DEMO_X3D_TINY.yaml)
#   clip-gradcam.png  the Clips tab under Grad-CAM, with runs/demo-amp's checkpoint
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
gui=${AMPSTUDIO_BUILD_DIR:-build}/app/gui/ampstudio
out=docs/images
mkdir -p "$out"
export XDG_CONFIG_HOME=$(mktemp -d)  # fresh preferences: default layout
shot() { xvfb-run -a -s "-screen 0 1600x1000x24" "$root/$gui" --size 1480x900 "$@"; }

shot --tab config --screenshot "$out/config.png" --screenshot-delay 2 configs/demo/DEMO_X3D_TINY.yaml
[ -d runs/demo-fp32 ] && [ -d runs/demo-amp ] &&
  shot --compare runs/demo-fp32,runs/demo-amp --screenshot "$out/compare.png" --screenshot-delay 2
# clip-gradcam.png: the Clips tab under Grad-CAM at s4 (a finer map than s5's 2 x 2 at this crop),
# with the demo run's newest checkpoint.
if [ -d runs/demo-amp ]; then
  gradcam=$(mktemp --suffix=.yaml)
  printf '_BASE_: %s\nOUTPUT_DIR: %s\nTENSORBOARD:\n  MODEL_VIS:\n    GRAD_CAM:\n      LAYER_LIST: [s4/pathway0_res4]\n' \
    "$root/configs/demo/DEMO_X3D_TINY.yaml" "$root/runs/demo-amp" > "$gradcam"
  shot --clip val:2 --grad-cam --screenshot "$out/clip-gradcam.png" --screenshot-delay 20 "$gradcam"
  rm -f "$gradcam"
fi
# The live one trains in a scratch folder that sees the demo config and data.
scratch=$(mktemp -d)
ln -s "$root/configs" "$scratch/configs"
ln -s "$root/demo-data" "$scratch/demo-data"
(cd "$scratch" && shot --demo configs/demo/DEMO_X3D_TINY.yaml --screenshot "$root/$out/dashboard.png" --screenshot-delay "${LIVE_SECONDS:-70}")
rm -rf "$scratch" "$XDG_CONFIG_HOME"
ls -l "$out"
