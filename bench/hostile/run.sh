#!/usr/bin/env bash
# Hostile inputs against the CLI and the studio (issue 52's goal: no input under 1 MB costs more
# than 256 MB above the command's own baseline or more than 10 s before it is refused by name).
# Writes the inputs (make_inputs.py, plus an 8192x8192 video made with ffmpeg), runs each reader
# on them beside the same reader on a benign input, and prints a Markdown table: exit code,
# seconds, peak RSS, RSS above the benign baseline, and the first line of what it said.
# Usage: bench/hostile/run.sh [BUILD_DIR]   (default build/; the studio rows need the GUI build
# and xvfb-run). Peak RSS is GNU time's maximum resident set size.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
cli=$build/app/cli/ampstudio-cli
studio=$build/app/gui/ampstudio
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$root/bench/hostile/make_inputs.py" "$work"
cd "$work"
mkdir -p videos
ffmpeg -v error -y -f lavfi -i color=size=8192x8192:rate=1 -frames:v 1 -c:v mjpeg -pix_fmt yuvj420p videos/big.mkv
ffmpeg -v error -y -f lavfi -i testsrc=size=64x48:rate=10 -frames:v 10 -c:v mjpeg -pix_fmt yuvj420p videos/ok.mkv
for s in train val test; do echo "big.mkv 0" > videos/$s.csv; done
mkdir -p videos-ok && cp videos/ok.mkv videos-ok/ && for s in train val test; do echo "ok.mkv 0" > videos-ok/$s.csv; done

baseline_kb=0
measure() {  # label input baseline|hostile command...
  local label=$1 input=$2 kind=$3
  shift 3
  local t0 t1 rc kb secs said
  set +e
  /usr/bin/time -o time.txt -f "%e %M" timeout 60 "$@" > out.txt 2>&1
  rc=$?
  set -e
  read -r secs kb < <(tail -n 1 time.txt)
  # What it said about this input: the first line naming it, else the first line.
  said=$(grep -m1 -F "$(basename "$input")" out.txt | cut -c1-160 | tr '|' '/' || true)
  [ -n "$said" ] || said=$(head -n 1 out.txt | cut -c1-160 | tr '|' '/')
  case "$label" in studio*) [ "$rc" = 0 ] && said="shown for 3 s, screenshot saved, quit normally" ;; esac
  if grep -q -F ": error" out.txt || grep -q -E "^[^#].*:[0-9]+:[0-9]+: " out.txt; then  # a refusal: that line
    said=$(grep -m1 -E ": error|:[0-9]+:[0-9]+: " out.txt | cut -c1-160 | tr '|' '/')
  fi
  if [ "$kind" = baseline ]; then baseline_kb=$kb; fi
  local size
  size=$(du -sb "$input" | cut -f1)
  printf '| %s | %s | %s | %s | %s | %d | %+d | %s |\n' "$label" "$size" "$kind" "$rc" "$secs" $((kb / 1024)) $(((kb - baseline_kb) / 1024)) "$said"
}

echo "| reader | input bytes | input | exit | seconds | peak RSS MiB | above baseline MiB | said |"
echo "|---|---|---|---|---|---|---|---|"
measure "config check" ok.yaml baseline "$cli" config check --cfg ok.yaml
measure "config check" alias-bomb.yaml hostile "$cli" config check --cfg alias-bomb.yaml
measure "config check" alias-bomb-in-base.yaml hostile "$cli" config check --cfg alias-bomb-in-base.yaml
measure "config check" diamond hostile "$cli" config check --cfg diamond/l0.yaml
measure "config check" deep-literal.yaml hostile "$cli" config check --cfg deep-literal.yaml
measure "config check" long-text-alias.yaml hostile "$cli" config check --cfg long-text-alias.yaml
measure "runs show" run-ok baseline "$cli" runs show run-ok
measure "runs show" run-deep-json hostile "$cli" runs show run-deep-json
measure "runs tail" run-long-line hostile "$cli" runs tail run-long-line
measure "runs show --config (PySlowFast run)" pysf-ok baseline "$cli" runs show pysf-ok --config
measure "runs show --config (PySlowFast run)" pysf-huge-storage hostile "$cli" runs show pysf-huge-storage --config
measure "runs show --config (PySlowFast run)" pysf-shared-lists hostile "$cli" runs show pysf-shared-lists --config
measure "runs show --config (PySlowFast run)" pysf-bomb-cfg hostile "$cli" runs show pysf-bomb-cfg --config
measure "data check" videos-ok baseline "$cli" data check --cfg ok.yaml DATA.PATH_TO_DATA_DIR videos-ok DATA.PATH_PREFIX videos-ok
measure "data check" videos/big.mkv hostile "$cli" data check --cfg ok.yaml DATA.PATH_TO_DATA_DIR videos DATA.PATH_PREFIX videos
if [ -x "$studio" ] && command -v xvfb-run > /dev/null; then
  # The studio shows the input for 3 s, saves a screenshot and quits; exit 0 means it survived.
  gui=(xvfb-run -a -s "-screen 0 1600x1000x24" "$studio" --runs "$work" --size 1500x950 --screenshot-delay 3)
  measure "studio (compare)" run-ok baseline "${gui[@]}" --screenshot "$work/compare-ok.png" --tab compare --compare run-ok,pysf-ok
  measure "studio (compare)" run-bomb-config hostile "${gui[@]}" --screenshot "$work/compare.png" --tab compare \
    --compare run-ok,run-bomb-config,run-deep-json,run-long-line,pysf-huge-storage,pysf-shared-lists,pysf-bomb-cfg
  measure "studio (open config)" alias-bomb.yaml hostile "${gui[@]}" --screenshot "$work/config.png" alias-bomb.yaml
  if [ -n "${SCREENSHOTS:-}" ]; then mkdir -p "$SCREENSHOTS" && cp "$work"/*.png "$SCREENSHOTS"/; fi
fi
