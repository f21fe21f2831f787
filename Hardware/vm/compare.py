#!/usr/bin/env python3
"""Compares two images pixel by pixel: a QMP screendump (PPM, P6) and a PNG from nookctl
snapshot (8-bit RGB or RGBA, as cairo writes them), or two PPMs. Prints the share of equal
pixels; exits 0 when it is at least the threshold. No imaging library needed."""
import os, sys
# The PNG reader the LED suite uses too (tests/png_read.py): one copy of the decoder.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tests'))
from png_read import read_png

def read_ppm(path):
    data = open(path, 'rb').read()
    parts, offset = [], 0
    while len(parts) < 4:
        while data[offset:offset + 1].isspace(): offset += 1
        if data[offset:offset + 1] == b'#':
            offset = data.index(b'\n', offset) + 1; continue
        end = offset
        while not data[end:end + 1].isspace(): end += 1
        parts.append(data[offset:end]); offset = end
    assert parts[0] == b'P6' and parts[3] == b'255', f'{path}: not an 8-bit P6 PPM'
    width, height = int(parts[1]), int(parts[2])
    pixels = data[offset + 1:offset + 1 + width * height * 3]
    return width, height, [tuple(pixels[i:i + 3]) for i in range(0, len(pixels), 3)]

def read(path): return read_png(path) if path.endswith('.png') else read_ppm(path)

a, b, threshold = sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
(wa, ha, pa), (wb, hb, pb) = read(a), read(b)
if (wa, ha) != (wb, hb):
    print(f'size differs: {wa}x{ha} vs {wb}x{hb}'); sys.exit(1)
same = sum(1 for x, y in zip(pa, pb) if x == y) / len(pa)
print(f'{same * 100:.3f}% of {wa}x{ha} pixels equal')
sys.exit(0 if same >= threshold else 1)
