#!/usr/bin/python3
"""Writes cv2_colour_maps.txt: OpenCV's own tables of viridis, plasma, inferno and magma (its
COLORMAP_* constants, built from the same published matplotlib data), for tst_colourmap to check
the studio's tables against an implementation it does not share. OpenCV is used here only, never
by the studio. Debian 12: python3-opencv (OpenCV 4.6). Run from this folder:
/usr/bin/python3 make_cv2_colour_maps.py

Format, one line per entry: NAME INDEX R G B (bytes; cv2.applyColorMap of the byte INDEX).
"""
import cv2
import numpy

MAPS = {"viridis": cv2.COLORMAP_VIRIDIS, "plasma": cv2.COLORMAP_PLASMA,
        "inferno": cv2.COLORMAP_INFERNO, "magma": cv2.COLORMAP_MAGMA}

with open("cv2_colour_maps.txt", "w", encoding="ascii") as out:
    out.write("# OpenCV %s applyColorMap, written by make_cv2_colour_maps.py\n" % cv2.__version__)
    ramp = numpy.arange(256, dtype=numpy.uint8).reshape(-1, 1)
    for name, code in MAPS.items():
        bgr = cv2.applyColorMap(ramp, code)[:, 0, :]
        for i, (b, g, r) in enumerate(bgr):
            out.write("%s %d %d %d %d\n" % (name, i, r, g, b))
