#!/bin/sh
# fbdev tests inside the guest (SPEC D2, N2): nookd --display fbdev on /dev/fb0 (virtio-gpu's
# fbdev emulation, XRGB8888). The glass must equal nookd's snapshot, and the console's pixels
# must be back after SIGTERM.
. "$(dirname "$0")/lib.sh"

modprobe virtio-gpu || { echo "FAIL modprobe virtio-gpu"; exit 1; }
for _ in $(seq 50); do [ -e /dev/fb0 ] && break; sleep 0.1; done
sleep 1
console_text "Nook fbdev test: this is the text console."
dump console-before

"$nookd" --display fbdev --socket "$socket" --log-level debug 2> "$results/nookd.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
if grep -q "through fbdev (xrgb8888)" "$results/nookd.log"; then pass "D2 nookd drives /dev/fb0 through fbdev"; else fail "nookd did not take fbdev: $(tail -3 "$results/nookd.log")"; fi
ctl enqueue --title "Backup complete" --subtitle "312 GB to nas.local" --icon checkmark.circle --tint blue --progress 1 --dwell 60 > /dev/null
for _ in $(seq 100); do ctl status | grep -q "(presented)" && break; sleep 0.1; done
sleep 0.5
ctl snapshot -o "$results/snapshot-card.png" > /dev/null && pass "snapshot of the card"
dump card
kill -TERM "$daemon"
wait "$daemon"
code=$?
if [ "$code" = 0 ]; then pass "SIGTERM: exit 0"; else fail "SIGTERM: exit $code"; fi
sleep 0.5
dump console-after
exit $status
