#!/bin/sh
# Q15 on a real kernel: the display's PCI device is removed while a card is on the glass
# (sysfs "remove": the kernel's own hot-unplug path, the driver's remove callback and
# drm_dev_unplug, as when a USB or SPI display vanishes; QEMU 7.2 cannot hot-plug a display
# device over QMP: device_add says virtio-gpu-pci is not a pluggable device type): nookd must keep running,
# keep what waits and report the display gone. A rescan of the bus then finds the device again
# and the kernel makes a new DRM card of it: nookd must find that and show what waits.
. "$(dirname "$0")/lib.sh"
# status_within SECONDS PATTERN: bounded by the clock, not by a count of nookctl runs (each can
# take a second on a loaded machine), so a nookd that never recovers fails instead of hanging.
status_within() {
  deadline=$(( $(date +%s) + $1 ))
  while [ "$(date +%s)" -lt "$deadline" ]; do ctl status | grep -q -- "$2" && return 0; sleep 0.2; done
  return 1
}
[ -e /dev/dri/card0 ] || modprobe virtio-gpu
for _ in $(seq 50); do [ -e /dev/dri/card0 ] && break; sleep 0.1; done
device=$(readlink -f /sys/class/drm/card0/device)
"$nookd" --display drm --socket "$socket" --log-level debug 2> "$results/nookd-unplug.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
ctl enqueue --title "Unplugged" --subtitle "mid-dwell" --icon bolt --tint red --dwell 60 > /dev/null
status_within 30 "(presented)"

echo 1 > "$device/remove"
for _ in $(seq 300); do [ -e /sys/class/drm/card0 ] || break; sleep 0.1; done
[ -e /sys/class/drm/card0 ] && fail "Q15 the card did not go away: $(dmesg | tail -5 | tr '\n' '|')"
ctl enqueue --title "Waiting for a display" --dwell 5 > /dev/null
# The queue hears of the loss first and then takes the card back (its slide out cannot reach
# the glass): status says "display unavailable" while the card is still going, so the wait is
# for where it ends.
status_within 15 "idle, 2 pending, display unavailable"
ctl status > "$results/status-unplugged.txt"
if kill -0 "$daemon" 2> /dev/null && grep -q "idle, 2 pending, display unavailable" "$results/status-unplugged.txt"; then
  pass "Q15 the display device removed: nookd runs on, the card on the glass and the new one wait, status says the display is unavailable"
else
  fail "Q15 unplugged: $(tr '\n' '|' < "$results/status-unplugged.txt"); $(tail -3 "$results/nookd-unplug.log")"
fi

echo 1 > /sys/bus/pci/rescan
for _ in $(seq 300); do ls /dev/dri/card* > /dev/null 2>&1 && break; sleep 0.1; done
status_within 20 'showing "Unplugged" (presented)'
ctl status > "$results/status-replugged.txt"
if grep -q 'showing "Unplugged" (presented), 1 pending' "$results/status-replugged.txt" && grep -q "the display is back" "$results/nookd-unplug.log"; then
  pass "Q15 a new display device appears ($(ls /dev/dri | tr '\n' ' ')): nookd takes it and shows the card that waited"
else
  fail "Q15 replugged: $(tr '\n' '|' < "$results/status-replugged.txt"); $(tail -3 "$results/nookd-unplug.log")"
fi
sleep 0.5
ctl snapshot -o "$results/snapshot-replugged.png" > /dev/null
dump replugged
kill -TERM "$daemon"
wait "$daemon" || fail "nookd (unplug) exited $?"
rm -f "$socket"
exit $status
