#!/bin/sh
# Proximity tests inside the guest (SPEC I2, I3, I4, Q6; issue 24): the kernel's own IIO drivers
# bound to chips emulated by i2c-stub, a VCNL4040 (vcnl4000 driver, fractional readings) and an
# LTR-559 (ltr501 driver, integer readings), named in nookd's config exactly as the docs name
# them. "Someone near" is the chip's proximity data register written with i2cset; nookd (mock
# display) must park a card while near and show it once they leave.
. "$(dirname "$0")/lib.sh"

# No udev in this guest: load the drivers by hand. i2c-stub answers at the chips' addresses
# with plain register memory (byte, word and I2C-block access, which both drivers use).
for module in i2c-dev vcnl4000 ltr501; do modprobe "$module" || fail "modprobe $module"; done
modprobe i2c-stub chip_addr=0x60,0x23,0x13 || { fail "modprobe i2c-stub"; exit 1; }
bus=
for adapter in /sys/bus/i2c/devices/i2c-*; do
  grep -q "SMBus stub" "$adapter/name" 2> /dev/null && bus=${adapter##*/i2c-}
done
[ -n "$bus" ] || { fail "no i2c-stub adapter"; exit 1; }
# -f: once a driver is bound, i2c-dev calls the address busy; the stub's memory is still ours.
vcnl_word() { i2cset -f -y "$bus" 0x60 "$1" "$2" w; }
ltr_byte() { i2cset -f -y "$bus" 0x23 "$1" "$2"; }

# VCNL4040: device id register 0x0C reads 0x0186 (the driver checks the low byte, 0x86); the
# proximity data word is register 0x08. LTR-559: part id 0x92 at 0x86 (the driver checks the
# high nibble, 9); status 0x8C bit 0 says the proximity data (0x8D low, 0x8E high) is ready.
vcnl_word 0x0c 0x0186
vcnl_word 0x08 0
ltr_byte 0x86 0x92
ltr_byte 0x8c 0x01
ltr_byte 0x8d 0
ltr_byte 0x8e 0
echo vcnl4040 0x60 > "/sys/bus/i2c/devices/i2c-$bus/new_device"
echo ltr559 0x23 > "/sys/bus/i2c/devices/i2c-$bus/new_device"
for _ in $(seq 50); do [ "$(ls -d /sys/bus/iio/devices/iio:device* 2> /dev/null | wc -l)" -ge 2 ] && break; sleep 0.1; done
device_named() { for d in /sys/bus/iio/devices/iio:device*; do [ "$(cat "$d/name")" = "$1" ] && echo "$d"; done; }
vcnl=$(device_named vcnl4000)
ltr=$(device_named ltr559)
names=$(cat /sys/bus/iio/devices/iio:device*/name | tr '\n' ' ')
if [ -n "$vcnl" ] && [ -n "$ltr" ] && [ -z "$(device_named vcnl4040)" ]; then
  pass "I2 the kernel names a VCNL4040 'vcnl4000' (never 'vcnl4040') and an LTR-559 'ltr559' (IIO names: $names)"
else
  fail "IIO names: $names"; dmesg | tail -20; exit 1
fi
vcnl_word 0x08 1024
first=$(cat "$vcnl/in_proximity_raw")
vcnl_word 0x08 0
echo "vcnl4040 register 1024 reads '$first'"

# run_nookd NAME THRESHOLD HYSTERESIS [EXTRA TOML]: nookd with one [proximity] table, the
# queue's poll every $poll_ms.
poll_ms=200
run_nookd() {
  printf '[queue]\npoll_interval_ms = %s\n\n[proximity]\nname = "%s"\nthreshold = %s\nhysteresis = %s\ninterval_ms = 50\n%s\n' \
    "$poll_ms" "$1" "$2" "$3" "${4:-}" > /tmp/proximity.toml
  "$nookd" --config /tmp/proximity.toml --display mock --socket "$socket" 2> "$results/nookd-$1.log" &
  daemon=$!
  for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
}
stop_nookd() { kill -TERM "$daemon"; wait "$daemon"; rm -f "$socket"; }
status_has() { ctl status | grep -q -- "$1"; }
# wait_for PATTERN [SECONDS]: until status shows it, at most SECONDS (10) by the clock: under
# TCG on a loaded host one nookctl call can take two seconds, so a count of tries is no bound.
wait_for() {
  local end=$(( $(date +%s) + ${2:-10} ))
  while ! status_has "$1"; do
    [ "$(date +%s)" -ge "$end" ] && return 1
    sleep 0.1
  done
}
# until_idle: until no card is on the glass (at most 30 s).
until_idle() {
  local end=$(( $(date +%s) + 30 ))
  while status_has "showing"; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.1; done
}

# park_and_show LABEL NEAR FAR: someone near parks the card, leaving shows it at once. The card
# dwells 30 s, so a slow status call cannot miss it, and is dismissed once seen.
park_and_show() {
  local label=$1 near=$2 far=$3
  $near
  wait_for "engaged: yes"
  ctl enqueue --title "Waiting for $label" --dwell 30 > /dev/null
  sleep 0.6
  if status_has "engaged: yes" && status_has "1 pending, waiting: yielding to the user"; then
    pass "I2 I3 Q6 $label near: nookd parks the card"
  else
    fail "$label near did not park: $(ctl status | tr '\n' '|')"
  fi
  ctl status > "$results/status-$label-near.txt"
  $far
  if wait_for "showing \"Waiting for $label\""; then
    pass "I2 I3 $label far: the parked card takes the glass"
  else
    fail "$label far did not release: $(ctl status | tr '\n' '|')"
  fi
  ctl dismiss > /dev/null 2>&1 || true
  until_idle || fail "$label: the card was still on the glass 30 s after it was dismissed"
}

# The VCNL4040 by the name the docs give, thresholds in what in_proximity_raw prints (count/16).
# A long poll (5 s, the most the config allows) here: "the next card on the person leaving" below
# is bounded far inside it, so a nookd that waited for its poll instead (I3) fails four times in
# five (the unit tests of I3 catch it every time; this proves the sensor's path on a real kernel).
poll_ms=5000
run_nookd vcnl4000 50 10
vcnl_near() { vcnl_word 0x08 1024; }    # prints 64.000000000
vcnl_far() { vcnl_word 0x08 160; }      # prints 10.000000000
park_and_show vcnl4040 vcnl_near vcnl_far

# Q6 yield, not preempt: someone arriving while a card is on the glass lets it finish its dwell;
# the next card waits for them to leave and then takes the glass at once. Judged by nookd's own
# times (the watch stream's): the shell's are late by however busy the host is.
# The dwell is long because the shell must write "near" and read nookd's status while the card is
# still up: on a loaded CI host a TCG guest took over 7 s for those few nookctl calls.
dwell=15
ctl watch | while IFS= read -r line; do echo "$(date +%s%N) $line"; done > /tmp/watch.log &
watcher=$!
# nookd does not replay events: the watcher must be subscribed before the card comes. A resume
# is announced to watchers, so its line in the log says the subscription is in place.
end=$(( $(date +%s) + 20 ))
until ctl resume > /dev/null; grep -q 'status: suspended changed' /tmp/watch.log || [ "$(date +%s)" -ge "$end" ]; do sleep 0.2; done
ctl enqueue --title "On the glass" --dwell "$dwell" > /dev/null
wait_for "showing \"On the glass\"" || fail "Q6 the first card did not show: $(ctl status | tr '\n' '|')"
vcnl_near
wait_for "engaged: yes" || fail "Q6 the sensor did not engage"
ctl status > /tmp/status-mid-dwell.txt    # for the failure message only
ctl enqueue --title "Next in line" --dwell 1 > /dev/null
until_idle || true
# nookd's own event times (not the shell's, which a loaded machine delays): the person arrived
# (the engagement change) between the card's slide-in and its slide-out, and the card was not
# taken off before its whole dwell (it counts from the end of its slide-in) nor put back.
set -- $(awk '/ animateIn .*"On the glass"$/ && shown == "" { shown = $2 + 0 }
              / status: engaged changed$/ && shown != "" && arrived == "" { arrived = $2 + 0 }
              / animateOut .*"On the glass"$/ && out == "" { out = $2 + 0 }
              END { if (shown != "" && arrived != "" && out != "") printf "%.1f %.1f %d\n", out - shown, arrived - shown, arrived < out }' /tmp/watch.log)
held=${1:-} arrived=${2:-} during=${3:-0}
if [ "$during" = 1 ] && awk -v h="$held" -v d="$dwell" 'BEGIN { exit !(h >= d - 0.1) }' && ! grep -q 'requeued.*"On the glass"' /tmp/watch.log; then
  pass "Q6 someone arriving mid-dwell (${arrived} s after its slide-in) does not interrupt the card on the glass (${held} s from its slide-in to its slide-out, dwell $dwell s)"
elif [ -n "$held" ] && [ "$during" = 0 ]; then
  fail "Q6 not tested: the person arrived ${arrived} s after the card's slide-in, after it had gone (${held} s); the shell was slower than the dwell"
else
  fail "Q6 the card on the glass was interrupted (${held:-?} s on the glass, dwell $dwell s): $(grep '"On the glass"\|engaged' /tmp/watch.log | tr '\n' '|'); status after the near: $(tr '\n' '|' < /tmp/status-mid-dwell.txt)"
fi
if ! status_has "showing" && status_has "1 pending, waiting: yielding to the user" && grep -q 'hidden.*"On the glass"' /tmp/watch.log; then
  pass "Q6 the next card waits while the person is near"
else
  fail "Q6 after the dwell: $(ctl status | tr '\n' '|')"
fi
sleep 0.5
left=$(date +%s%N)
vcnl_far
end=$(( $(date +%s) + 20 ))
until grep -q ' animateIn .*"Next in line"$' /tmp/watch.log || [ "$(date +%s)" -ge "$end" ]; do sleep 0.1; done
shown=$(sed -n 's/^\([0-9]*\) .* animateIn .*"Next in line"$/\1/p' /tmp/watch.log | head -1)
kill "$watcher" 2> /dev/null
if [ -n "$shown" ]; then
  echo "note proximity: far written to the next card's animateIn seen by the shell: $(( (shown - left) / 1000000 )) ms (sensor read every 50 ms; the shell's fork and pipe delays included)"
  # nookd's times ("118.2s" reads as 118.2 in awk arithmetic): the card's animateIn, the
  # engagement change closest before it (the person leaving; each watcher stamps its own line,
  # so up to 50 ms after is taken too), and the parked card's end, when the queue began to wait.
  # I3 wakes the queue on the change; without it the card waits for the queue's next poll, up to
  # 5 s after the park: conclusive when the person left less than 3.9 s into a poll.
  set -- $(awk '/ status: engaged changed$/ { changes[n++] = $2 + 0 }
                / hidden .*"On the glass"$/ && parked == "" { parked = $2 + 0 }
                / animateIn .*"Next in line"$/ && shown == "" { shown = $2 + 0 }
                END {
                  if (shown == "" || parked == "") exit
                  for (i = 0; i < n; i++) if (changes[i] <= shown + 0.05 && (left == "" || changes[i] > left)) left = changes[i]
                  if (left == "") exit
                  printf "%d %d\n", (shown - left) * 1000, ((left - parked) * 1000) % 5000
                }' /tmp/watch.log)
  woke=${1:-} into=${2:-}
  if [ -z "$woke" ]; then
    fail "Q6 nookd's times of the far change or the park are missing: $(grep 'engaged\|Next in line\|On the glass' /tmp/watch.log | tr '\n' '|')"
  elif [ "$woke" -ge -100 ] && [ "$woke" -lt 1000 ] && [ "$into" -lt 3900 ]; then
    pass "Q6 I3 the next card takes the glass $woke ms after nookd sees the person leave ($into ms into a $poll_ms ms poll, bound 1000 ms)"
  elif [ "$woke" -ge -100 ] && [ "$woke" -lt 1000 ]; then
    echo "note Q6 I3 inconclusive: the card came $woke ms after the person left, but they left $into ms into a $poll_ms ms poll, where waiting for the poll looks the same"
  else
    fail "Q6 the next card came $woke ms after nookd saw the person leave (poll $poll_ms ms): $(grep 'engaged\|Next in line' /tmp/watch.log | tr '\n' '|')"
  fi
else
  fail "Q6 the next card never took the glass: $(ctl status | tr '\n' '|'); $(tail -5 /tmp/watch.log | tr '\n' '|')"
fi
if grep -q "input proximity:vcnl4000 (hover): active, reading 64$" "$results/status-vcnl4040-near.txt" \
   && ! grep -q "not a value" "$results/nookd-vcnl4000.log"; then
  pass "I2 the VCNL4040's fractional '$first' is read as 64, shown in status"
else
  fail "VCNL4040 reading: $(cat "$results/status-vcnl4040-near.txt" | tr '\n' '|') $(cat "$results/nookd-vcnl4000.log")"
fi
stop_nookd

# The LTR-559: integer counts 0-2047.
poll_ms=200
run_nookd ltr559 200 20
ltr_near() { ltr_byte 0x8d 0x2c; ltr_byte 0x8e 0x01; }   # 300
ltr_far() { ltr_byte 0x8d 0x10; ltr_byte 0x8e 0x00; }    # 16
park_and_show ltr559 ltr_near ltr_far
stop_nookd

# A device number naming the other chip (devices renumbered): refused and shown, not read.
run_nookd vcnl4000 50 10 "device = \"${ltr##*/}\""
ltr_near
if wait_for "input proximity:vcnl4000 (hover): unavailable (.*is named 'ltr559', not 'vcnl4000'" && status_has "engaged: no"; then
  pass "I2 I4 a device number that belongs to another sensor is refused and status says why"
else
  fail "renumbered device: $(ctl status | tr '\n' '|')"
fi
ltr_far
stop_nookd

# A VCNL4010 (same driver, same IIO name): Linux 6.12 oopses with a divide error when its
# in_proximity_raw is read (ps_scale is 0 for the old chips). nookd must refuse it, not read it.
i2cset -y "$bus" 0x13 0x81 0x21    # product id 2, revision 1
echo vcnl4010 0x13 > "/sys/bus/i2c/devices/i2c-$bus/new_device"
for _ in $(seq 50); do [ "$(ls -d /sys/bus/iio/devices/iio:device* 2> /dev/null | wc -l)" -ge 3 ] && break; sleep 0.1; done
old_chip=
for d in $(device_named vcnl4000); do [ -e "$d/in_proximity_integration_time" ] || old_chip=$d; done
if [ -n "$old_chip" ]; then
  run_nookd vcnl4000 50 10 "device = \"${old_chip##*/}\""
  if wait_for "input proximity:vcnl4000 (hover): unavailable (.*VCNL4000/4010/4020.*divides by zero" && kill -0 "$daemon" \
     && ! dmesg | grep -q "divide error"; then
    pass "I2 I4 a VCNL4010 (named 'vcnl4000' too) is refused, not read: no kernel oops, status says why"
  else
    fail "VCNL4010: $(ctl status | tr '\n' '|'); $(dmesg | grep -c 'divide error') oops"
  fi
  stop_nookd
else
  fail "the VCNL4010 did not probe: $(dmesg | tail -3)"
fi

# The chip goes away and comes back (driver unbound and bound again): nookd keeps running.
run_nookd ltr559 200 20
echo 0x23 > "/sys/bus/i2c/devices/i2c-$bus/delete_device"
if wait_for "input proximity:ltr559 (hover): unavailable (no IIO device named 'ltr559'"; then
  echo ltr559 0x23 > "/sys/bus/i2c/devices/i2c-$bus/new_device"
  ltr_near
  if wait_for "input proximity:ltr559 (hover): active, reading 300" && kill -0 "$daemon"; then
    pass "I4 a sensor removed is unavailable in status, and found again when it returns"
  else
    fail "sensor back: $(ctl status | tr '\n' '|')"
  fi
else
  fail "sensor removed: $(ctl status | tr '\n' '|')"
fi
stop_nookd

# Z2 auto-brightness from the VCNL4040's light channel, as the kernel prints it (raw counts and
# a scale): nookd scales a (fake, in /tmp) backlight's idle level by the room's light, and falls
# back to the configured level when the chip goes away. The ALS data word is register 0x09.
vcnl_word 0x09 0
dark_raw=$(cat "$vcnl/in_illuminance_raw" 2> /dev/null)
vcnl_word 0x09 0x0800
bright_raw=$(cat "$vcnl/in_illuminance_raw" 2> /dev/null)
scale=$(cat "$vcnl/in_illuminance_scale" 2> /dev/null)
bright_lux=$(awk -v r="$bright_raw" -v s="$scale" 'BEGIN { printf "%d", r * s }')
echo "vcnl4040 light: raw $dark_raw dark, $bright_raw bright, scale $scale: $bright_lux lx"
mkdir -p /tmp/backlight/panel
echo 100 > /tmp/backlight/panel/max_brightness
echo 100 > /tmp/backlight/panel/brightness
level() { head -1 /tmp/backlight/panel/brightness; }
wait_level() { for _ in $(seq 100); do [ "$(level)" = "$1" ] && return 0; sleep 0.1; done; return 1; }
printf '[brightness]\nbacklight = "panel"\nsysfs_root = "/tmp/backlight"\nidle = 60\nambient_sensor = "vcnl4000"\nambient_device = "%s"\nambient_curve = ["0:20", "%s:100"]\nambient_interval_ms = 100\n' \
  "${vcnl##*/}" "$bright_lux" > /tmp/ambient.toml
"$nookd" --config /tmp/ambient.toml --display mock --socket "$socket" 2> "$results/nookd-ambient.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
if [ "$bright_lux" -gt 0 ] && wait_level 60; then
  vcnl_word 0x09 0
  if wait_level 12; then
    pass "Z2 the VCNL4040's light channel ($bright_raw × $scale lx, then 0) sets the idle level: 60, then a fifth of it in the dark"
  else
    fail "Z2 dark room: level $(level); $(tail -3 "$results/nookd-ambient.log" | tr '\n' '|')"
  fi
  echo 0x60 > "/sys/bus/i2c/devices/i2c-$bus/delete_device"
  if wait_level 60 && kill -0 "$daemon" && grep -q "light:vcnl4000: .* the brightness keeps its fixed levels" "$results/nookd-ambient.log"; then
    pass "Z2 I4 the light sensor removed: a warning, the configured level again, nookd running"
  else
    fail "Z2 light sensor removed: level $(level); $(tail -3 "$results/nookd-ambient.log" | tr '\n' '|')"
  fi
else
  fail "Z2 ambient light: level $(level) with $bright_lux lx; $(tail -3 "$results/nookd-ambient.log" | tr '\n' '|')"
fi
stop_nookd
exit $status
