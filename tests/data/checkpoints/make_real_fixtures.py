#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the same checkpoint as make_fixtures.py with PyTorch and NumPy themselves, so
tst_torchfile also reads files the real libraries wrote. Needs Debian's python3-torch and
python3-numpy (torch 1.13.1, numpy 1.24 on Debian 12): /usr/bin/python3 make_real_fixtures.py
"""
import collections
import pickle

import numpy as np
import torch


def checkpoint():
    w = torch.tensor([0.5, 1.5, 2.5, 3.5, 4.5, 5.5]).view(2, 3)
    model = collections.OrderedDict()
    model["conv.weight"] = w
    model["conv.weight_t"] = w.t()  # shares w's storage
    model["fc.bias"] = torch.tensor([-1.0, -2.0, 10.0, 20.0, 30.0])[2:]  # offset 2 into its storage
    model["bn.num_batches_tracked"] = torch.tensor(7)
    model["half"] = torch.tensor([1.0, -2.5, 0.1]).half()
    model["bf16"] = torch.tensor([1.0, -3.0, 0.5]).bfloat16()
    model["mask"] = torch.tensor([True, False, True])
    model["param"] = torch.nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64))
    model["empty"] = torch.zeros(0, 4)
    model._metadata = collections.OrderedDict([("", {"version": 1}), ("conv", {"version": 2})])
    return {
        "epoch": 4,
        "model_state": model,
        "optimizer_state": {
            "state": {0: {"momentum_buffer": torch.tensor([0.25, -0.25])}},
            "param_groups": [{"lr": 0.1, "momentum": 0.9, "nesterov": True, "params": [0, 1]}],
        },
        "cfg": "TRAIN:\n  BATCH_SIZE: 8\n",
        "big": 2 ** 40,
        "neg": -5,
        "misc": (None, 1.25, "text", [1, 2]),
    }


def pyslowfast_sequential():
    """A checkpoint as PySlowFast's save_checkpoint writes it, of Sequential(Linear(4, 3),
    BatchNorm1d(3)) after one SGD step with PySlowFast's parameter groups (bn first, then the rest).
    momentum_by_name is extra: the buffers by parameter name, for the test to check they land on
    the right parameters."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    groups = [{"params": list(net[1].parameters()), "weight_decay": 0.0},
              {"params": list(net[0].parameters()), "weight_decay": 1e-4}]
    opt = torch.optim.SGD(groups, lr=0.1, momentum=0.9)
    net(torch.randn(5, 4)).pow(2).sum().backward()
    opt.step()
    momentum = {n: opt.state[p]["momentum_buffer"] for n, p in net.named_parameters()}
    torch.save({"epoch": 2, "model_state": net.state_dict(), "optimizer_state": opt.state_dict(),
                "cfg": "SOLVER:\n  BASE_LR: 0.1\n", "momentum_by_name": momentum}, "pyslowfast_sequential.pyth")


if __name__ == "__main__":
    pyslowfast_sequential()
    torch.save(checkpoint(), "pytorch_zip.pyth")
    torch.save(checkpoint(), "pytorch_legacy.pyth", _use_new_zipfile_serialization=False)
    blobs = collections.OrderedDict()
    blobs["conv1_w"] = np.array([0.5, -0.5], dtype=np.float32).reshape(2, 1, 1, 1, 1)
    blobs["res_conv1_bn_s"] = np.array([1.0, 2.0], dtype=np.float32)
    blobs["res_conv1_bn_riv"] = np.array([0.75, 0.25], dtype=np.float32)
    blobs["pred_w"] = np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    blobs["pred_b"] = np.array([0.125, -8.0], dtype=">f8")
    blobs["model_iter"] = np.array(123, dtype=np.int64)
    blobs["bytes_over_127"] = np.array([200, 0, 255], dtype=np.uint8)
    with open("numpy_blobs.pkl", "wb") as f:
        pickle.dump({"blobs": blobs}, f, protocol=2)
