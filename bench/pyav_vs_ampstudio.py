#!/usr/bin/python3
"""Side-by-side decode + sampling benchmark: PyAV (Debian's python3-av, what PySlowFast's
"pyav" backend uses) against AMP Studio's loader, on the same clips, in one run, one core each.

Both do the same work per clip: open the video, pick PySlowFast's clip span and a random start,
seek to the keyframe before it, decode the span, convert the wanted frames to RGB at the
jittered short-side size (swscale in both), random crop, flip, /255 - mean / std, C x T x H x W.
Only the ratio means anything: the machine is shared and noisy.

    bench/pyav_vs_ampstudio.py --cfg configs/demo/DEMO_X3D_TINY.yaml [--clips 200] [KEY VALUE ...]
"""
import argparse
import math
import random
import re
import subprocess
import sys
import time

import av
import numpy as np
import yaml


def resolved_config(cli, cfg, overrides):
    out = subprocess.run([cli, "config", "show", "--cfg", cfg, *overrides], check=True, capture_output=True, text=True)
    return yaml.safe_load(out.stdout)


def read_list(cfg, split):
    data = cfg["DATA"]
    prefix = data["PATH_PREFIX"]
    entries = []
    with open(f"{data['PATH_TO_DATA_DIR']}/{split}.csv") as f:
        for line in f:
            if line.strip():
                path, label = line.rstrip("\n").rsplit(data["PATH_LABEL_SEPARATOR"], 1)
                entries.append((f"{prefix}/{path}" if prefix else path, int(label)))
    return entries


def pyav_clip(path, cfg, rng):
    data = cfg["DATA"]
    with av.open(path) as container:
        stream = container.streams.video[0]
        fps = float(stream.average_rate)
        n_frames = stream.frames or int(round(float(stream.duration * stream.time_base) * fps))
        span = data["SAMPLING_RATE"] * data["NUM_FRAMES"] / data["TARGET_FPS"] * fps
        start = rng.uniform(0, max(n_frames - span, 0))
        idx = np.clip(np.linspace(start, start + span - 1, data["NUM_FRAMES"]), 0, n_frames - 1).astype(np.int64)
        lo, hi = rng.uniform(0, 1), None
        jmin, jmax = data["TRAIN_JITTER_SCALES"]
        short = int(round(jmin + (jmax - jmin) * lo))
        w, h = stream.codec_context.width, stream.codec_context.height
        if w < h:
            ow, oh = short, int(math.floor(h / w * short))
        else:
            oh, ow = short, int(math.floor(w / h * short))
        wanted = sorted(set(idx.tolist()))
        first_t = wanted[0] / fps
        container.seek(int(first_t / stream.time_base), stream=stream, backward=True, any_frame=False)
        frames = {}
        last = None
        for frame in container.decode(stream):
            i = int(round(float(frame.pts * stream.time_base) * fps))
            last = frame
            while wanted and wanted[0] <= i:
                frames[wanted.pop(0)] = frame.to_ndarray(format="rgb24", width=ow, height=oh)
            if not wanted:
                break
        for k in wanted:  # past the end: the last frame
            frames[k] = last.to_ndarray(format="rgb24", width=ow, height=oh)
    clip = np.stack([frames[i] for i in idx.tolist()])  # T x H x W x 3
    crop = data["TRAIN_CROP_SIZE"]
    y = int(rng.uniform(0, 1) * (oh - crop)) if oh > crop else 0
    x = int(rng.uniform(0, 1) * (ow - crop)) if ow > crop else 0
    clip = clip[:, y:y + crop, x:x + crop, :]
    if data["RANDOM_FLIP"] and rng.uniform(0, 1) < 0.5:
        clip = clip[:, :, ::-1, :]
    clip = (clip.astype(np.float32) / 255.0 - np.array(data["MEAN"], np.float32)) / np.array(data["STD"], np.float32)
    return np.ascontiguousarray(clip.transpose(3, 0, 1, 2))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cfg", required=True)
    ap.add_argument("--cli", default="build/app/cli/ampstudio-cli")
    ap.add_argument("--clips", type=int, default=200)
    ap.add_argument("--split", default="train")
    ap.add_argument("overrides", nargs="*")
    a = ap.parse_args()
    cfg = resolved_config(a.cli, a.cfg, a.overrides)
    entries = read_list(cfg, a.split)
    rng = random.Random(0)
    order = [entries[i % len(entries)][0] for i in range(a.clips)]
    rng.shuffle(order)
    pyav_clip(order[0], cfg, rng)  # warm the file cache
    t0 = time.perf_counter()
    for path in order:
        pyav_clip(path, cfg, rng)
    pyav_rate = a.clips / (time.perf_counter() - t0)

    batch = cfg["TRAIN"]["BATCH_SIZE"]
    batches = max(1, a.clips // batch)
    out = subprocess.run([a.cli, "bench", "data", "--cfg", a.cfg, "--split", a.split, "--batches", str(batches),
                          "--workers", "1", *a.overrides], check=True, capture_output=True, text=True).stdout
    row = re.search(r"^\s*1\s+([\d.]+)\s", out, re.M)
    if not row:
        sys.exit("could not read ampstudio-cli bench data output:\n" + out)
    ours = float(row.group(1))
    print(f"clips: {a.clips} ({a.split}, {cfg['DATA']['NUM_FRAMES']} frames, crop {cfg['DATA']['TRAIN_CROP_SIZE']})")
    print(f"PyAV {av.__version__} + numpy, 1 process:   {pyav_rate:8.1f} clips/s")
    print(f"AMP Studio loader, 1 worker:        {ours:8.1f} clips/s")
    print(f"ratio AMP Studio / PyAV per core:   {ours / pyav_rate:8.2f}x")


if __name__ == "__main__":
    main()
