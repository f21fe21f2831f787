#!/usr/bin/env python3
"""Checks LED chip registers read back from i2c-stub against nookd's snapshot (SPEC L2):
  led-frame.py SNAPSHOT.png REGISTERS.txt is31fl3731|ht16k33
SNAPSHOT is nookctl's round-LED picture (16x16 pixels per LED: the centre pixel is the LED's
colour); REGISTERS holds the chip's bytes as hex words (IS31FL3731: the 144 PWM registers of
the frame on display; HT16K33: the 16 bytes of display RAM). The addressing is written here
from the boards' own libraries (Pimoroni's Scroll pHAT HD, Adafruit's 8x8 backpack), not from
Nook's code. Prints how many LEDs agree; exits 0 only if all do and at least one is lit."""
import os, sys
snapshot, registers, chip = sys.argv[1], sys.argv[2], sys.argv[3]
import importlib.util
spec = importlib.util.spec_from_file_location("png", os.path.join(os.path.dirname(os.path.abspath(__file__)), "png_read.py"))
png = importlib.util.module_from_spec(spec); spec.loader.exec_module(png)
width, height, pixels = png.read_png(snapshot)
leds_x, leds_y = width // 16, height // 16
def led(x, y):
    return max(pixels[(y * 16 + 8) * width + x * 16 + 8])
values = [int(word, 16) for word in open(registers).read().split()]
agree = lit = 0
for y in range(leds_y):
    for x in range(leds_x):
        want = led(x, y)
        if chip == "is31fl3731":
            # Pimoroni: show() addresses pixel (x, 6 - y) through _pixel_addr.
            px, py = x, 6 - y
            if px > 8: px, py = px - 8, 6 - (py + 8)
            else: px = 8 - px
            got = values[px * 16 + py]
        else:
            # Adafruit Matrix8x8: set_led(y * 16 + ((x + 7) % 8)); byte led // 8, bit led % 8.
            index = y * 16 + (x + 7) % 8
            got = 255 if values[index // 8] >> (index % 8) & 1 else 0
            want = 255 if want >= 128 else 0
        agree += got == want
        lit += want > 0
total = leds_x * leds_y
print(f"{agree} of {total} LEDs agree ({lit} lit)")
sys.exit(0 if agree == total and lit > 0 else 1)
