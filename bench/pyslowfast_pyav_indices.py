#!/usr/bin/python3
"""Which source frames PySlowFast's pyav backend puts in a clip: the reference for the studio's
DATA.DECODING_BACKEND pyav sampling (tests/engine/data/tst_sampling.cpp hard-codes its output).

PySlowFast's decode() fails at HEAD for the pyav backend (docs/data.md says where), so this
follows, for one clip, what it did before that refactor: pyav_decode() (the clip size
ceil(SAMPLING_RATE x (NUM_FRAMES - 1) / TARGET_FPS x fps) over the header's frame count, pts per
frame = stream duration / frame count, the seek 1024 pts before the start to the keyframe before
it, frames kept by pts in [start_pts, end_pts] plus the first past it, sorted by pts; or the whole
video when the stream has no duration), then get_start_end_idx() and temporal_sampling() with
torch.linspace evaluated in float32 as PyTorch does. It is written from PySlowFast's behaviour,
with PyAV (Debian's python3-av) doing the decoding, so the frame timestamps are PyAV's own.

Printed per clip: `list`, positions in PySlowFast's decoded list (what its temporal_sampling
indexes), and `frames`, the same frames as positions in the decoder's output order from the start
of the file (what the studio's frame_indices count). They differ where PyAV's timestamps do not
count frames from 0 in output order.

    /usr/bin/python3 bench/pyslowfast_pyav_indices.py VIDEO [--rate 2] [--frames 32] \
        [--target-fps 30] [--views 10] [--offset] [--draw U ...]

Without --draw, the test views 0 .. views-1; each --draw U is a training clip whose
random.uniform(0, delta) returned delta x U.
"""
import argparse
import json
import math

import av
import numpy as np


def torch_linspace(start, end, steps):
    """torch.linspace(start, end, steps) in float32: PyTorch's two-sided formula."""
    s, e = np.float32(start), np.float32(end)
    if steps == 1:
        return [s]
    step = np.float32((e - s) / np.float32(steps - 1))
    half = steps // 2
    return [s + step * np.float32(i) if i < half else e - step * np.float32(steps - i - 1)
            for i in range(steps)]


def temporal_sampling(n_frames, start, end, steps):
    """The list positions temporal_sampling() takes: clamp to [0, n - 1], then .long()."""
    return [int(min(max(v, np.float32(0)), np.float32(n_frames - 1))) for v in torch_linspace(start, end, steps)]


def start_end(video_size, clip_size, clip_idx, num_clips, use_offset, draw):
    """get_start_end_idx(); `draw` stands for random.uniform(0, 1) when clip_idx is -1."""
    delta = max(video_size - clip_size, 0)
    if clip_idx == -1:
        start = delta * draw
    elif use_offset:
        start = math.floor(delta / 2) if num_clips == 1 else clip_idx * math.floor(delta / (num_clips - 1))
    else:
        start = delta * clip_idx / num_clips
    return start, start + clip_size - 1


def output_order(path):
    """pts -> position of that frame in the decoder's output order, decoding the whole file."""
    with av.open(path) as container:
        return {f.pts: i for i, f in enumerate(container.decode(video=0))}


def clip(path, a, clip_idx, draw):
    with av.open(path) as container:
        stream = container.streams.video[0]
        fps = float(stream.average_rate)
        frames_length, duration = stream.frames, stream.duration
        if duration is None:  # pyav_decode: decode the entire video
            start_pts, end_pts = 0, math.inf
        else:
            clip_size = max(1.0, math.ceil(a.rate * (a.frames - 1) / a.target_fps * fps))
            s, e = start_end(frames_length, clip_size, clip_idx, a.views, a.offset, draw)
            timebase = duration / frames_length  # ZeroDivisionError without a frame count
            start_pts, end_pts = int(s * timebase), int(e * timebase)
        # pyav_decode_stream with buffer_size 0: the first frame past end_pts is kept, then stop.
        container.seek(max(start_pts - 1024, 0), any_frame=False, backward=True, stream=stream)
        kept = {}
        for frame in container.decode(video=0):
            if frame.pts < start_pts:
                continue
            kept[frame.pts] = frame
            if frame.pts > end_pts:
                break
        pts = sorted(kept)
    span = max(1.0, a.rate * a.frames / a.target_fps * fps)
    if duration is None:
        s, e = start_end(len(pts), span, clip_idx, a.views, a.offset, draw)
    else:
        s, e = start_end(len(pts), span, 0, 1, False, 0)  # already trimmed: from the first kept
    positions = temporal_sampling(len(pts), s, e, a.frames)
    return {"start_pts": start_pts, "end_pts": None if end_pts == math.inf else end_pts,
            "kept_pts": [pts[0], pts[-1]], "kept": len(pts), "list": positions,
            "frames": [a.order[pts[p]] for p in positions]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("video")
    ap.add_argument("--rate", type=int, default=2, help="DATA.SAMPLING_RATE")
    ap.add_argument("--frames", type=int, default=32, help="DATA.NUM_FRAMES")
    ap.add_argument("--target-fps", type=float, default=30, help="DATA.TARGET_FPS")
    ap.add_argument("--views", type=int, default=10, help="TEST.NUM_ENSEMBLE_VIEWS")
    ap.add_argument("--offset", action="store_true", help="DATA.USE_OFFSET_SAMPLING")
    ap.add_argument("--draw", type=float, action="append", help="a training clip's uniform draw")
    a = ap.parse_args()
    with av.open(a.video) as container:
        st = container.streams.video[0]
        print(json.dumps({"container": container.format.name, "codec": st.codec_context.name,
                          "frames": st.frames, "duration": st.duration, "time_base": str(st.time_base),
                          "average_rate": str(st.average_rate), "start_time": st.start_time}))
    a.order = output_order(a.video)
    clips = [(-1, u) for u in a.draw] if a.draw else [(k, 0.0) for k in range(a.views)]
    for clip_idx, draw in clips:
        out = {"view": clip_idx} if clip_idx >= 0 else {"draw": draw}
        out.update(clip(a.video, a, clip_idx, draw))
        print(json.dumps(out))


if __name__ == "__main__":
    main()
