#!/usr/bin/env python3
"""Compares two images pixel by pixel: a QMP screendump (PPM, P6) and a PNG from nookctl
snapshot (8-bit RGB or RGBA, as cairo writes them), or two PPMs. Prints the share of equal
pixels; exits 0 when it is at least the threshold. No imaging library needed."""
import struct, sys, zlib

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
    return width, height, [pixels[i:i + 3] for i in range(0, len(pixels), 3)]

def read_png(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', f'{path}: not a PNG'
    offset, idat, header = 8, b'', None
    while offset < len(data):
        length, kind = struct.unpack('>I4s', data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b'IHDR': header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT': idat += body
        offset += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, f'{path}: unsupported PNG layout'
    channels = 3 if color == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1: line[x] = (line[x] + left) & 255
            elif kind == 2: line[x] = (line[x] + up) & 255
            elif kind == 3: line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line)); previous = line
    return width, height, [row[i:i + 3] for row in rows for i in range(0, stride, channels)]

def read(path): return read_png(path) if path.endswith('.png') else read_ppm(path)

a, b, threshold = sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
(wa, ha, pa), (wb, hb, pb) = read(a), read(b)
if (wa, ha) != (wb, hb):
    print(f'size differs: {wa}x{ha} vs {wb}x{hb}'); sys.exit(1)
same = sum(1 for x, y in zip(pa, pb) if x == y) / len(pa)
print(f'{same * 100:.3f}% of {wa}x{ha} pixels equal')
sys.exit(0 if same >= threshold else 1)
