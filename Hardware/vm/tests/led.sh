#!/bin/sh
# LED tests inside the guest (SPEC L2, L5, N2): the kernel's i2c-stub stands in for an
# IS31FL3731 (0x74, its frame pages as i2c-stub banks selected by register 0xFD), a second one
# as a Pimoroni LED SHIM (0x75) and an HT16K33 (0x70) on one i2c-dev bus. nookd drives each through /dev/i2c-N; the chip's registers, read
# back with i2c-tools, must hold the frame nookd drew (its snapshot), and be dark after SIGTERM.
. "$(dirname "$0")/lib.sh"

# Banks 1-15 for page values 1-15 (page 0 is the unbanked registers), over registers 0x00-0xB3.
modprobe i2c-stub chip_addr=0x70,0x74,0x75 bank_reg=0,0xFD,0xFD bank_mask=0,0x0F,0x0F bank_start=0,0x00,0x00 \
  bank_end=0,0xB3,0xB3 \
  || { fail "L2 i2c-stub loads with a paged chip"; exit 1; }
modprobe i2c-dev
bus=
for adapter in /sys/class/i2c-dev/i2c-*; do
  [ "$(cat "$adapter/name")" = "SMBus stub driver" ] && bus=${adapter##*/i2c-}
done
[ -n "$bus" ] && [ -e "/dev/i2c-$bus" ] && pass "L2 i2c-stub is /dev/i2c-$bus" || { fail "no i2c-dev node for i2c-stub"; exit 1; }

# run_nookd CHIP BOARD ADDRESS: nookd on that chip with exact values (no gamma, full brightness),
# blank home, showing one still card (white, so the IS31FL3731's PWM is the pixel's value).
run_nookd() {
  cat > /tmp/led.toml <<TOML
[display]
backend = "led-i2c"
[home]
content = "blank"
[led]
device = "/dev/i2c-$bus"
chip = "$1"
board = "$2"
address = $3
brightness = 1.0
gamma = 1.0
TOML
  rm -f "$socket"
  "$nookd" --config /tmp/led.toml --socket "$socket" --log-level debug 2> "$results/nookd-$1.log" &
  daemon=$!
  for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
  grep -q "through led-i2c" "$results/nookd-$1.log" && pass "L2 nookd drives the $1 through /dev/i2c-$bus" \
    || fail "nookd did not take the $1: $(tail -3 "$results/nookd-$1.log")"
}
show_card() {
  ctl enqueue --title "$1" --tint "#ffffff" --dwell 60 $3 > /dev/null
  for _ in $(seq 100); do ctl status | grep -q "(presented)" && break; sleep 0.1; done
  sleep 0.5
  ctl snapshot -o "$results/snapshot-$2.png" > /dev/null
}
stop_nookd() {
  kill -TERM "$daemon"
  wait "$daemon"
  code=$?
  [ "$code" = 0 ] && pass "N2 $1: SIGTERM exits 0" || fail "$1: SIGTERM exit $code"
}
# is31_page PAGE FIRST LAST: the registers of one page as hex words (byte reads honour the page).
# ADDRESS defaults to 0x74.
is31_page() {
  address=${4:-0x74}
  i2cset -y "$bus" "$address" 0xFD "$1"
  i=$2
  while [ "$i" -le "$3" ]; do i2cget -y "$bus" "$address" "$i" b; i=$((i + 1)); done | tr '\n' ' '
}

# IS31FL3731 on a Scroll pHAT HD (17x7).
run_nookd is31fl3731 scroll-phat-hd 0x74
show_card "Hi" is31
function=$(is31_page 0x0B 0 10)
frame=$(echo "$function" | cut -d' ' -f2)
shutdown=$(echo "$function" | cut -d' ' -f11)
is31_page "$frame" 36 179 > "$results/is31-pwm.txt"
[ "$shutdown" = 0x01 ] && pass "L2 the IS31FL3731 is out of shutdown, showing frame $frame" || fail "IS31FL3731 function page: $function"
if python3 "$repo/Hardware/vm/tests/led-frame.py" "$results/snapshot-is31.png" "$results/is31-pwm.txt" is31fl3731 > "$results/is31-check.txt"; then
  pass "L2 the IS31FL3731's PWM registers hold the frame nookd drew ($(cat "$results/is31-check.txt"))"
else
  fail "IS31FL3731 registers differ from the snapshot: $(cat "$results/is31-check.txt")"
fi
stop_nookd IS31FL3731
function=$(is31_page 0x0B 0 10)
pages=$(is31_page 0 36 179; is31_page 1 36 179)
if [ "$(echo "$function" | cut -d' ' -f11)" = 0x00 ] && ! echo "$pages" | grep -qv '^\(0x00 \)*$'; then
  pass "L5 after SIGTERM the IS31FL3731 is in shutdown with both frames dark"
else
  fail "IS31FL3731 after stop: function $function"
fi

# IS31FL3731 on an LED SHIM (28 RGB LEDs, an ambient strip): a white card at 50 % progress
# lights the first 14 LEDs fully and the rest dimmer, each colour on the SHIM's own register.
run_nookd is31fl3731 led-shim 0x75
show_card "Hi" shim "--progress 0.5"
function=$(is31_page 0x0B 0 10 0x75)
frame=$(echo "$function" | cut -d' ' -f2)
is31_page "$frame" 36 179 0x75 > "$results/shim-pwm.txt"
if python3 "$repo/Hardware/vm/tests/led-frame.py" "$results/snapshot-shim.png" "$results/shim-pwm.txt" led-shim > "$results/shim-check.txt"; then
  pass "L2 L4 the LED SHIM's PWM registers hold the strip nookd drew ($(cat "$results/shim-check.txt"))"
else
  fail "LED SHIM registers differ from the snapshot: $(cat "$results/shim-check.txt")"
fi
stop_nookd "LED SHIM"
pages=$(is31_page 0 36 179 0x75; is31_page 1 36 179 0x75)
if ! echo "$pages" | grep -qv '^\(0x00 \)*$'; then pass "L5 after SIGTERM the LED SHIM is dark"; else fail "LED SHIM after stop: $pages"; fi

# HT16K33 on an 8x8 backpack.
run_nookd ht16k33 8x8 0x70
show_card "H" ht16k33
ram() { i=0; while [ "$i" -le 15 ]; do i2cget -y "$bus" 0x70 "$i" b; i=$((i + 1)); done | tr '\n' ' '; }
ram > "$results/ht16k33-ram.txt"
if python3 "$repo/Hardware/vm/tests/led-frame.py" "$results/snapshot-ht16k33.png" "$results/ht16k33-ram.txt" ht16k33 > "$results/ht16k33-check.txt"; then
  pass "L2 the HT16K33's display RAM holds the frame nookd drew ($(cat "$results/ht16k33-check.txt"))"
else
  fail "HT16K33 RAM differs from the snapshot: $(cat "$results/ht16k33-check.txt")"
fi
stop_nookd HT16K33
if ! ram | grep -qv '^\(0x00 \)*$'; then pass "L5 after SIGTERM the HT16K33's display RAM is dark"; else fail "HT16K33 RAM after stop: $(ram)"; fi
exit $status
