#!/usr/bin/env python3
"""Writes the hostile inputs of bench/hostile/run.sh into a folder: each under 1 MB (the 100 MB
metrics line aside, which the issue names), each shaped to cost a careless reader far more than
its size. Nothing here is executed by AMP Studio; the checkpoints are pickles written with a
stand-in 'torch' module, so no PyTorch is needed.  Usage: make_inputs.py OUT_DIR"""
import collections
import io
import json
import os
import pickle
import sys
import types
import zipfile

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def write(rel, data):
    path = os.path.join(out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def alias_bomb(depth=10, fanout=10):
    lines = ["TRAIN:", "  BATCH_SIZE: ["]
    for level in range(depth):
        items = ", ".join(["1"] * fanout if level == 0 else ["*a%d" % (level - 1)] * fanout)
        lines.append("    &a%d [%s]%s" % (level, items, "," if level + 1 < depth else ""))
    return "\n".join(lines + ["  ]", ""])


# Configs.
write("ok.yaml", "TRAIN:\n  BATCH_SIZE: 8\n")
write("alias-bomb.yaml", alias_bomb())
write("base/bomb.yaml", alias_bomb())
write("alias-bomb-in-base.yaml", "_BASE_: base/bomb.yaml\n")
for i in range(12):  # 4^12 merges, within the 16-file depth limit
    write("diamond/l%d.yaml" % i, "".join("_BASE_: l%d.yaml\n" % (i + 1) for _ in range(4)))
write("diamond/l12.yaml", "TRAIN:\n  BATCH_SIZE: 8\n")
write("deep-literal.yaml", "MVIT:\n  DIM_MUL: '" + "[" * 100000 + "1" + "]" * 100000 + "'\n")
write("long-text-alias.yaml", "OUTPUT_DIR: &s " + "x" * 200000 + "\nTRAIN:\n  BATCH_SIZE: [" + ", ".join(["*s"] * 100) + "]\n")


# Run folders (ours): run.json, config.yaml, metrics.jsonl.
def run_folder(name, config="TRAIN:\n  BATCH_SIZE: 8\n", meta=None, metrics=None):
    meta = meta or json.dumps({"format": "ampstudio-run", "format_version": 1, "name": name, "status": "finished", "precision": "fp32"})
    write(name + "/run.json", meta)
    write(name + "/config.yaml", config)
    write(name + "/metrics.jsonl", metrics if metrics is not None else
          '{"kind":"train","step":1,"epoch":0.1,"time":1.0,"values":{"loss":2.0}}\n')


run_folder("run-ok")
run_folder("run-bomb-config", config=alias_bomb())
run_folder("run-deep-json", meta='{"format": "ampstudio-run", "format_version": 1, "name": "deep", "status": "finished", "x": ' + "[" * 100000 + "]" * 100000 + "}")
run_folder("run-long-line", metrics="")
with open(os.path.join(out, "run-long-line/metrics.jsonl"), "wb") as f:  # the 100 MB line
    chunk = b"7" * (1 << 20)
    f.write(b'{"kind":"train","step":1,"values":{"loss":')
    for _ in range(100):
        f.write(chunk)

# Checkpoints, in PySlowFast run folders (their newest checkpoint's cfg is what `runs show` reads).
torch = types.ModuleType("torch")
utils = types.ModuleType("torch._utils")


def _rebuild_tensor_v2(*args):
    raise RuntimeError("never called")


class FloatStorage:
    pass


_rebuild_tensor_v2.__module__ = "torch._utils"
_rebuild_tensor_v2.__qualname__ = "_rebuild_tensor_v2"
utils._rebuild_tensor_v2 = _rebuild_tensor_v2
FloatStorage.__module__ = "torch"
torch.FloatStorage = FloatStorage
torch._utils = utils
sys.modules["torch"] = torch
sys.modules["torch._utils"] = utils


class StorageRef:
    def __init__(self, numel):
        self.numel = numel


class Tensor:
    def __init__(self, numel):
        self.numel = numel

    def __reduce__(self):
        return (_rebuild_tensor_v2, (StorageRef(self.numel), 0, (self.numel,), (1,), False, collections.OrderedDict()))


class Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, StorageRef):
            return ("storage", FloatStorage, "0", "cpu", obj.numel)
        return None


def torch_zip(obj, storage_bytes=b"\0" * 4):
    buf = io.BytesIO()
    Pickler(buf, protocol=2).dump(obj)
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w", zipfile.ZIP_STORED) as f:
        f.writestr("archive/data.pkl", buf.getvalue())
        f.writestr("archive/data/0", storage_bytes)
        f.writestr("archive/version", "3\n")
    return z.getvalue()


def pyslowfast_run(name, checkpoint):
    write(name + "/json_stats.log", 'json_stats: {"_type": "train_epoch", "epoch": "1/12", "loss": 4.5}\n')
    write(name + "/checkpoints/checkpoint_epoch_00001.pyth", checkpoint)


cfg = "TRAIN:\n  BATCH_SIZE: 8\n"
pyslowfast_run("pysf-ok", torch_zip({"epoch": 1, "model_state": collections.OrderedDict(w=Tensor(1)), "cfg": cfg}))
pyslowfast_run("pysf-huge-storage", torch_zip({"epoch": 1, "model_state": collections.OrderedDict(w=Tensor(10 ** 12)), "cfg": cfg}))
shared = []
for _ in range(60):
    shared = [shared, shared]
pyslowfast_run("pysf-shared-lists", torch_zip({"epoch": 1, "model_state": shared, "cfg": cfg}))
pyslowfast_run("pysf-bomb-cfg", torch_zip({"epoch": 1, "model_state": collections.OrderedDict(w=Tensor(1)), "cfg": alias_bomb()}))
