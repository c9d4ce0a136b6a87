#!/usr/bin/python3
"""Writes pil_ops.txt: what Pillow returns for the image operations PySlowFast's RandAugment
calls, on small RGB frames, for tst_pilops. Python's standard library and Pillow only
(Debian 12: python3-pil, Pillow 9.4). Run from this folder: /usr/bin/python3 make_pil_fixtures.py

Each operation is called the way slowfast/datasets/rand_augment.py calls it (Image.transform with
AFFINE coefficients, Image.rotate, ImageOps, ImageEnhance), with fillcolor (128, 128, 128) and the
bilinear or bicubic filter. Format, one record a line:
  image NAME WIDTH HEIGHT HEX           the input frame, packed RGB
  OP IMAGE FILTER ARG HEX               OP's result; FILTER bilinear|bicubic|-, ARG repr() or -
"""
import PIL
from PIL import Image, ImageEnhance, ImageOps

FILL = (128, 128, 128)
FILTERS = {"bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC}


def frame(width, height, seed, lo, hi):
    state = seed
    data = bytearray()
    for _ in range(width * height * 3):
        state = (state * 1103515245 + 12345) % (1 << 31)
        data.append(lo + (state >> 16) % (hi - lo + 1))
    return Image.frombytes("RGB", (width, height), bytes(data))


def affine(img, coeffs, flt):
    return img.transform(img.size, Image.AFFINE, coeffs, resample=FILTERS[flt], fillcolor=FILL)


def solarize_add(img, add):
    lut = [min(255, i + add) if i < 128 else i for i in range(256)]
    return img.point(lut * 3)


GEOMETRIC = {
    "ShearX": lambda img, f, flt: affine(img, (1, f, 0, 0, 1, 0), flt),
    "ShearY": lambda img, f, flt: affine(img, (1, 0, 0, f, 1, 0), flt),
    "TranslateXRel": lambda img, p, flt: affine(img, (1, 0, p * img.size[0], 0, 1, 0), flt),
    "TranslateYRel": lambda img, p, flt: affine(img, (1, 0, 0, 0, 1, p * img.size[1]), flt),
    "Rotate": lambda img, d, flt: img.rotate(d, resample=FILTERS[flt], fillcolor=FILL),
}
GEOMETRIC_ARGS = {
    "ShearX": [0.3, -0.17, 0.0513],
    "ShearY": [0.3, -0.21, 0.0777],
    "TranslateXRel": [0.45, -0.2113, 0.0371],
    "TranslateYRel": [0.45, -0.333, 0.1],
    "Rotate": [30.0, -17.3, 5.25, 0.0, -30.0, 12.6],
}
POINT = {
    "Posterize": (lambda img, b: ImageOps.posterize(img, b) if b < 8 else img, [0, 1, 2, 3, 4, 7]),
    "Solarize": (lambda img, t: ImageOps.solarize(img, t), [0, 77, 128, 200, 256]),
    "SolarizeAdd": (solarize_add, [0, 55, 110]),
    "Color": (lambda img, f: ImageEnhance.Color(img).enhance(f), [0.0, 0.1, 0.37, 1.0, 1.63, 1.9]),
    "Contrast": (lambda img, f: ImageEnhance.Contrast(img).enhance(f), [0.0, 0.1, 0.37, 1.0, 1.63, 1.9]),
    "Brightness": (lambda img, f: ImageEnhance.Brightness(img).enhance(f), [0.0, 0.1, 0.37, 1.0, 1.63, 1.9]),
    "Sharpness": (lambda img, f: ImageEnhance.Sharpness(img).enhance(f), [0.0, 0.1, 0.37, 1.0, 1.63, 1.9]),
}
PLAIN = {
    "AutoContrast": ImageOps.autocontrast,
    "Equalize": ImageOps.equalize,
    "Invert": ImageOps.invert,
}


def main():
    images = {
        "full": frame(11, 9, 7, 0, 255),
        "narrow": frame(10, 7, 99, 40, 170),
        "few": frame(6, 5, 3, 100, 102),
    }
    lines = ["# Pillow %s; written by make_pil_fixtures.py" % PIL.__version__]
    for name, img in images.items():
        lines.append("image %s %d %d %s" % (name, img.size[0], img.size[1], img.tobytes().hex()))
    for name, img in images.items():
        for op, fn in GEOMETRIC.items():
            for arg in GEOMETRIC_ARGS[op]:
                for flt in FILTERS:
                    lines.append("%s %s %s %r %s" % (op, name, flt, arg, fn(img, arg, flt).tobytes().hex()))
        for op, (fn, args) in POINT.items():
            for arg in args:
                lines.append("%s %s - %r %s" % (op, name, arg, fn(img, arg).tobytes().hex()))
        for op, fn in PLAIN.items():
            lines.append("%s %s - - %s" % (op, name, fn(img).tobytes().hex()))
    with open("pil_ops.txt", "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
