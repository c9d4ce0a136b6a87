#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the checkpoint fixtures of tst_torchfile without PyTorch or NumPy.

torch.save pickles a state dict with pickle protocol 2: tensors reduce to
torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict()),
parameters to torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict()), and each
storage is a persistent id ('storage', torch.<Type>Storage, key, location, element count). The
zip format (PyTorch >= 1.6) stores the pickle as <archive>/data.pkl and each storage's bytes as
<archive>/data/<key>; the legacy format writes a magic number, the protocol version 1001, a
sys_info dict, the pickle, the sorted list of storage keys, then every storage as an int64
element count followed by its bytes. Caffe2 model-zoo weights are pickled NumPy arrays:
numpy.core.multiarray._reconstruct(numpy.ndarray, (0,), b'b') then BUILD with
(1, shape, dtype, is_fortran, raw bytes); dtypes are numpy.dtype('f4', False, True) with the
BUILD state (3, '<', None, None, None, -1, -1, 0).

Python's own pickle writes these files here, with stand-ins registered under the module names
PyTorch and NumPy use, so every opcode and GLOBAL is what those libraries emit. The expected
values are spelled out in tst_torchfile.cpp. Run from this folder: python3 make_fixtures.py
"""
import collections
import io
import pickle
import struct
import sys
import types
import zipfile


def module(name, **members):
    m = types.ModuleType(name)
    for key, value in members.items():
        value.__module__ = name
        value.__qualname__ = key
        value.__name__ = key
        setattr(m, key, value)
    sys.modules[name] = m
    return m


def _stand_in(*args):
    raise RuntimeError("never called: only its name is pickled")


class _Type:
    pass


torch = module("torch", **{n: type(n, (_Type,), {}) for n in (
    "FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage", "BoolStorage")})
torch_utils = module("torch._utils", _rebuild_tensor_v2=lambda *a: None, _rebuild_parameter=lambda *a: None)
numpy = module("numpy", ndarray=type("ndarray", (), {}), dtype=type("dtype", (), {}))
multiarray = module("numpy.core.multiarray", _reconstruct=lambda *a: None)
sys.modules["numpy.core"] = types.ModuleType("numpy.core")


class Storage:
    FORMATS = {"FloatStorage": "f", "DoubleStorage": "d", "HalfStorage": "e", "LongStorage": "q", "BoolStorage": "?"}

    def __init__(self, kind, values):
        self.kind, self.values = kind, list(values)

    def raw(self):
        if self.kind == "BFloat16Storage":  # the upper half of each float32
            return b"".join(struct.pack("<f", v)[2:] for v in self.values)
        return struct.pack("<%d%s" % (len(self.values), self.FORMATS[self.kind]), *self.values)


class Tensor:
    def __init__(self, storage, offset, size, stride, view=None):
        self.storage, self.offset, self.size, self.stride, self.view = storage, offset, size, stride, view

    def __reduce_ex__(self, protocol):
        source = self.view if self.view is not None else self.storage
        return (torch_utils._rebuild_tensor_v2,
                (source, self.offset, tuple(self.size), tuple(self.stride), False, collections.OrderedDict()))


class Parameter:
    def __init__(self, tensor):
        self.tensor = tensor

    def __reduce_ex__(self, protocol):
        return (torch_utils._rebuild_parameter, (self.tensor, True, collections.OrderedDict()))


class View:  # a legacy storage view: (root, offset, size) in elements
    def __init__(self, root, offset, size):
        self.root, self.offset, self.size = root, offset, size


def contiguous(kind, values, size):
    stride, acc = [], 1
    for s in reversed(size):
        stride.insert(0, acc)
        acc *= s
    return Tensor(Storage(kind, values), 0, size, stride)


def checkpoint(legacy):
    weights = Storage("FloatStorage", [0.5, 1.5, 2.5, 3.5, 4.5, 5.5])
    bias = Storage("FloatStorage", [-1.0, -2.0, 10.0, 20.0, 30.0])
    model = collections.OrderedDict()
    model["conv.weight"] = Tensor(weights, 0, [2, 3], [3, 1])
    model["conv.weight_t"] = Tensor(weights, 0, [3, 2], [1, 3])  # the same storage, transposed
    model["fc.bias"] = Tensor(bias, 2, [3], [1])  # an offset into its storage
    model["bn.num_batches_tracked"] = Tensor(Storage("LongStorage", [7]), 0, [], [])
    model["half"] = contiguous("HalfStorage", [1.0, -2.5, 0.1], [3])
    model["bf16"] = contiguous("BFloat16Storage", [1.0, -3.0, 0.5], [3])
    model["mask"] = contiguous("BoolStorage", [True, False, True], [3])
    model["param"] = Parameter(contiguous("DoubleStorage", [1.0, 2.0, 3.0, 4.0], [2, 2]))
    model["empty"] = Tensor(Storage("FloatStorage", []), 0, [0, 4], [4, 1])
    if legacy:
        model["view"] = Tensor(bias, 0, [3], [1], view=View(bias, 1, 3))  # bias[1:4]
    model._metadata = collections.OrderedDict([("", {"version": 1}), ("conv", {"version": 2})])
    momentum = contiguous("FloatStorage", [0.25, -0.25], [2])
    return {
        "epoch": 4,
        "model_state": model,
        "optimizer_state": {
            "state": {0: {"momentum_buffer": momentum}},
            "param_groups": [{"lr": 0.1, "momentum": 0.9, "nesterov": True, "params": [0, 1]}],
        },
        "cfg": "TRAIN:\n  BATCH_SIZE: 8\n",
        "big": 2 ** 40,
        "neg": -5,
        "misc": (None, 1.25, "text", [1, 2]),
    }


# What PySlowFast's save_checkpoint writes into OUTPUT_DIR/checkpoints/checkpoint_epoch_*.pyth: the
# epoch, the weights, the optimizer and "cfg", the yacs cfg.dump() of the run's config (keys sorted,
# block style, lists one item per line). SOLVER.FROM_A_LATER_VERSION stands for a key of another
# PySlowFast version. Read by tst_importedrun (the config of an imported PySlowFast run).
PYSLOWFAST_RUN_CFG = """DATA:
  DECODING_BACKEND: pyav
  INPUT_CHANNEL_NUM:
  - 3
  NUM_FRAMES: 8
  SAMPLING_RATE: 8
  TRAIN_JITTER_SCALES:
  - 256
  - 320
MODEL:
  ARCH: slow
  MODEL_NAME: ResNet
  NUM_CLASSES: 400
NUM_GPUS: 8
OUTPUT_DIR: /checkpoint/someone/slow_8x8
SOLVER:
  BASE_LR: 0.8
  FROM_A_LATER_VERSION: 3
TRAIN:
  BATCH_SIZE: 64
  MIXED_PRECISION: true
"""


def pyslowfast_run_checkpoint():
    model = collections.OrderedDict()
    model["head.projection.weight"] = contiguous("FloatStorage", [0.5] * 8, [4, 2])
    return {"epoch": 12, "model_state": model, "optimizer_state": {"state": {}, "param_groups": []},
            "cfg": PYSLOWFAST_RUN_CFG}


class TorchPickler(pickle.Pickler):
    def __init__(self, f, legacy):
        super().__init__(f, protocol=2)
        self.legacy, self.storages = legacy, {}

    def key(self, storage):
        if id(storage) not in self.storages:
            # zip: 0, 1, ...; legacy: the storage's address, as str(storage._cdata)
            self.storages[id(storage)] = (str(len(self.storages)) if not self.legacy
                                          else str(94000000000000 + 64 * len(self.storages)), storage)
        return self.storages[id(storage)][0]

    def persistent_id(self, obj):
        if isinstance(obj, View):
            root = self.key(obj.root)
            return ("storage", getattr(torch, obj.root.kind), root, "cpu", len(obj.root.values),
                    (root + "_view", obj.offset, obj.size))
        if not isinstance(obj, Storage):
            return None
        pid = ("storage", getattr(torch, obj.kind), self.key(obj), "cpu", len(obj.values))
        return pid + (None,) if self.legacy else pid


def write_zip(path, obj):
    data = io.BytesIO()
    pickler = TorchPickler(data, legacy=False)
    pickler.dump(obj)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", data.getvalue())
        z.writestr("archive/byteorder", "little")
        for key, storage in sorted(pickler.storages.values()):
            z.writestr("archive/data/" + key, storage.raw())
        z.writestr("archive/version", "3\n")


def write_legacy(path, obj):
    out = io.BytesIO()
    for header in (0x1950a86a20f9469cfc6c, 1001,
                   {"protocol_version": 1001, "little_endian": True, "type_sizes": {"short": 2, "int": 4, "long": 8}}):
        pickle.dump(header, out, protocol=2)
    pickler = TorchPickler(out, legacy=True)
    pickler.dump(obj)
    keys = sorted(k for k, _ in pickler.storages.values())
    pickle.dump(keys, out, protocol=2)
    for key in keys:
        storage = next(s for k, s in pickler.storages.values() if k == key)
        out.write(struct.pack("<q", len(storage.values)))
        out.write(storage.raw())
    with open(path, "wb") as f:
        f.write(out.getvalue())


class Dtype:
    def __init__(self, code, order):
        self.code, self.order = code, order

    def __reduce__(self):
        return (numpy.dtype, (self.code, False, True), (3, self.order, None, None, None, -1, -1, 0))


class Array:
    def __init__(self, dtype, shape, raw, fortran=False):
        self.dtype, self.shape, self.raw, self.fortran = dtype, shape, raw, fortran

    def __reduce__(self):
        return (multiarray._reconstruct, (numpy.ndarray, (0,), b"b"),
                (1, tuple(self.shape), self.dtype, self.fortran, self.raw))


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


def write_caffe2(path):
    f4 = Dtype("f4", "<")
    blobs = collections.OrderedDict()
    blobs["conv1_w"] = Array(f4, [2, 1, 1, 1, 1], f32(0.5, -0.5))
    blobs["res_conv1_bn_s"] = Array(f4, [2], f32(1.0, 2.0))
    blobs["res_conv1_bn_riv"] = Array(f4, [2], f32(0.75, 0.25))
    # 2x3, column-major bytes: [[1, 2, 3], [4, 5, 6]] is stored 1 4 2 5 3 6
    blobs["pred_w"] = Array(f4, [2, 3], f32(1, 4, 2, 5, 3, 6), fortran=True)
    blobs["pred_b"] = Array(Dtype("f8", ">"), [2], struct.pack(">2d", 0.125, -8.0))  # big-endian doubles
    blobs["model_iter"] = Array(Dtype("i8", "<"), [], struct.pack("<q", 123))
    blobs["bytes_over_127"] = Array(Dtype("u1", "|"), [3], bytes([200, 0, 255]))
    with open(path, "wb") as f:
        pickle.dump({"blobs": blobs}, f, protocol=2)


if __name__ == "__main__":
    write_zip("torchsave_zip.pyth", checkpoint(legacy=False))
    write_legacy("torchsave_legacy.pyth", checkpoint(legacy=True))
    write_caffe2("caffe2_blobs.pkl")
    write_zip("pyslowfast_run.pyth", pyslowfast_run_checkpoint())
