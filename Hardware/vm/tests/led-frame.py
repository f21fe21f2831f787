#!/usr/bin/env python3
"""Checks LED chip registers read back from i2c-stub against nookd's snapshot (SPEC L2):
  led-frame.py SNAPSHOT.png REGISTERS.txt is31fl3731|led-shim|ht16k33
SNAPSHOT is nookctl's round-LED picture (16x16 pixels per LED, 12x12 on a strip: the centre
pixel is the LED's colour); REGISTERS holds the chip's bytes as hex words (IS31FL3731: the 144
PWM registers of the frame on display; HT16K33: the 16 bytes of display RAM). The addressing is
written here from the boards' own libraries (Pimoroni's Scroll pHAT HD and LED SHIM, Adafruit's
8x8 backpack), not from Nook's code. On the LED SHIM every channel is compared, and every PWM
register it does not wire must be zero. Prints how many LEDs agree; exits 0 only if all do and at least one is lit."""
import os, sys
snapshot, registers, chip = sys.argv[1], sys.argv[2], sys.argv[3]
import importlib.util
spec = importlib.util.spec_from_file_location("png", os.path.join(os.path.dirname(os.path.abspath(__file__)), "png_read.py"))
png = importlib.util.module_from_spec(spec); spec.loader.exec_module(png)
width, height, pixels = png.read_png(snapshot)
cell = 12 if chip == "led-shim" else 16
leds_x, leds_y = width // cell, height // cell
def led(x, y):
    return max(pixels[(y * cell + cell // 2) * width + x * cell + cell // 2])
values = [int(word, 16) for word in open(registers).read().split()]
agree = lit = 0
if chip == "led-shim":
    # Pimoroni ledshim's LOOKUP, split by colour: LED n's red, green and blue PWM offsets.
    red = [118, 117, 116, 115, 114, 113, 112, 134, 133, 132, 131, 130, 129, 128,
           127, 121, 122, 123, 124, 125, 126, 15, 8, 9, 10, 11, 12, 13]
    green = [69, 68, 84, 83, 82, 81, 80, 21, 20, 19, 18, 17, 33, 32,
             47, 41, 25, 26, 27, 28, 29, 95, 89, 90, 91, 92, 76, 77]
    blue = [85, 101, 100, 99, 98, 97, 96, 37, 36, 35, 34, 50, 49, 48,
            63, 57, 58, 42, 43, 44, 45, 111, 105, 106, 107, 108, 109, 93]
    levels = set()
    for x in range(leds_x):
        want = tuple(pixels[(cell // 2) * width + x * cell + cell // 2][:3])
        got = (values[red[x]], values[green[x]], values[blue[x]])
        agree += got == want
        lit += max(want) > 0
        levels.add(want)
    stray = [r for r in range(144) if r not in red + green + blue and values[r]]
    print(f"{agree} of {leds_x} LEDs agree ({lit} lit, {len(levels)} levels), {len(stray)} stray registers")
    sys.exit(0 if agree == leds_x == 28 and lit > 0 and len(levels) > 1 and not stray else 1)
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
