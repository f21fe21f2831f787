#!/usr/bin/env python3
"""Compares two images pixel by pixel: a QMP screendump (PPM, P6) and a PNG from nookctl
snapshot (8-bit RGB or RGBA, as cairo writes them), or two PPMs. Prints the share of equal
pixels; exits 0 when it is at least the threshold. No imaging library needed.
  compare.py A B [THRESHOLD] [--turn DEGREES] [--rgb565]
--turn turns A clockwise first (a rotated panel's glass back to the drawing's orientation);
--rgb565 compares only the top 5, 6 and 5 bits of red, green and blue (a 16-bit framebuffer).
  compare.py --dark A SHARE: at least SHARE of A's pixels are black (a blanked display).
  compare.py --bright A SHARE: at least SHARE of A's pixels have every channel at 128 or more."""
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

def turn(width, height, pixels, degrees):
    """Turns an image clockwise by a multiple of 90 degrees."""
    for _ in range(degrees // 90 % 4):
        # Clockwise: the new row y is the old column y read bottom to top.
        pixels = [pixels[(height - 1 - x) * width + y] for y in range(width) for x in range(height)]
        width, height = height, width
    return width, height, pixels

args = sys.argv[1:]
if args[0] in ('--dark', '--bright'):
    width, height, pixels = read(args[1])
    wanted = (lambda p: p == (0, 0, 0)) if args[0] == '--dark' else (lambda p: min(p) >= 128)
    share = sum(1 for p in pixels if wanted(p)) / len(pixels)
    print(f'{share * 100:.3f}% of {width}x{height} pixels {args[0][2:]}')
    sys.exit(0 if share >= float(args[2]) else 1)
degrees, rgb565 = 0, False
if '--turn' in args:
    at = args.index('--turn'); degrees = int(args[at + 1]); del args[at:at + 2]
if '--rgb565' in args:
    args.remove('--rgb565'); rgb565 = True
a, b, threshold = args[0], args[1], float(args[2]) if len(args) > 2 else 1.0
(wa, ha, pa), (wb, hb, pb) = turn(*read(a), degrees), read(b)
if (wa, ha) != (wb, hb):
    print(f'size differs: {wa}x{ha} vs {wb}x{hb}'); sys.exit(1)
if rgb565:
    quantize = lambda p: (p[0] >> 3, p[1] >> 2, p[2] >> 3)
    pa, pb = [quantize(p) for p in pa], [quantize(p) for p in pb]
same = sum(1 for x, y in zip(pa, pb) if x == y) / len(pa)
print(f'{same * 100:.3f}% of {wa}x{ha} pixels equal' + (f' (A turned {degrees}°)' if degrees else '') + (' in RGB565' if rgb565 else ''))
sys.exit(0 if same >= threshold else 1)
