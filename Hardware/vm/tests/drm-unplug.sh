#!/bin/sh
# Q15 on a real kernel: the display's PCI device (virtio-gpu on a hot-pluggable PCIe root port of
# a q35 machine) is removed over QMP while a card is on the glass, as a USB or SPI display
# vanishes: nookd must keep running, keep what waits and report the display gone. A new device
# is then added on the same port: nookd must find it and show what waits.
. "$(dirname "$0")/lib.sh"
"$nookd" --display drm --socket "$socket" --log-level debug 2> "$results/nookd-unplug.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
ctl enqueue --title "Unplugged" --subtitle "mid-dwell" --icon bolt --tint red --dwell 60 > /dev/null
for _ in $(seq 100); do ctl status | grep -q "(presented)" && break; sleep 0.1; done

qmp unplug '{"execute":"device_del","arguments":{"id":"gpu"}}'
for _ in $(seq 300); do [ -e /sys/class/drm/card0 ] || break; sleep 0.1; done
if [ -e /sys/class/drm/card0 ]; then
  fail "Q15 the card did not go away: $(cat "$results/qmp-unplug.reply" | tr '\n' ' ')"
fi
ctl enqueue --title "Waiting for a display" --dwell 5 > /dev/null
for _ in $(seq 100); do ctl status | grep -q "display unavailable" && break; sleep 0.1; done
ctl status > "$results/status-unplugged.txt"
if kill -0 "$daemon" 2> /dev/null && grep -q "idle, 2 pending, display unavailable" "$results/status-unplugged.txt"; then
  pass "Q15 the display device removed: nookd runs on, the card on the glass and the new one wait, status says the display is unavailable"
else
  fail "Q15 unplugged: $(tr '\n' '|' < "$results/status-unplugged.txt"); $(tail -3 "$results/nookd-unplug.log")"
fi

qmp plug '{"execute":"device_add","arguments":{"driver":"virtio-gpu-pci","id":"gpu2","bus":"rp1","xres":1280,"yres":400}}'
for _ in $(seq 300); do ls /dev/dri/card* > /dev/null 2>&1 && break; sleep 0.1; done
for _ in $(seq 100); do ctl status | grep -q 'showing "Unplugged" (presented)' && break; sleep 0.1; done
ctl status > "$results/status-replugged.txt"
if grep -q 'showing "Unplugged" (presented), 1 pending' "$results/status-replugged.txt" && grep -q "the display is back" "$results/nookd-unplug.log"; then
  pass "Q15 a new display device appears ($(ls /dev/dri | tr '\n' ' ')): nookd takes it and shows the card that waited"
else
  fail "Q15 replugged: $(tr '\n' '|' < "$results/status-replugged.txt"); $(cat "$results/qmp-plug.reply" | tr '\n' ' '); $(tail -3 "$results/nookd-unplug.log")"
fi
sleep 0.5
ctl snapshot -o "$results/snapshot-replugged.png" > /dev/null
screen=gpu2 dump replugged
kill -TERM "$daemon"
wait "$daemon" || fail "nookd (unplug) exited $?"
rm -f "$socket"
exit $status
