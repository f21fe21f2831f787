#!/bin/sh
# DRM tests inside the guest (SPEC D1, R5, R6, N2). Runs nookd --display drm on virtio-gpu and
# asks the host for screendumps (QMP) through /mnt/results: "dump-NAME.request" in, the host
# writes dump-NAME.ppm and dump-NAME.done. Extra arguments go to nookd (rotation).
. "$(dirname "$0")/lib.sh"

modprobe virtio-gpu || { echo "FAIL modprobe virtio-gpu"; exit 1; }
for _ in $(seq 50); do [ -e /dev/dri/card0 ] && break; sleep 0.1; done
sleep 1
console_text "Nook real-kernel test: this is the text console; it must be back after nookd exits."
dump console-before

# restore() itself, checked while nookd's descriptor is still open (the kernel would otherwise
# restore its own console when the last DRM client closes, hiding a broken restore).
if "$nookd" --test-display "$@" > "$results/test-display.log" 2>&1; then
  pass "nookd --test-display: $(tail -2 "$results/test-display.log" | head -1)"
else
  fail "nookd --test-display: $(tail -3 "$results/test-display.log")"
fi

# Clear errors (D1): without access to the card, and for a connector that does not exist.
if setpriv --reuid=65534 --regid=65534 --clear-groups "$nookd" --display drm --socket /tmp/denied.sock 2> "$results/denied.log"; then
  fail "nookd ran without access to the card"
elif grep -q "udev/70-nook.rules" "$results/denied.log"; then
  pass "D1 access denied names the udev rules and the nook group"
else
  fail "access denied without advice: $(tail -2 "$results/denied.log")"
fi
printf '[display]\nconnector = "HDMI-A-9"\n' > /tmp/wrong-connector.toml
if "$nookd" --config /tmp/wrong-connector.toml --display drm --socket /tmp/wrong.sock 2> "$results/wrong.log"; then
  fail "nookd started on a connector that does not exist"
elif grep -q "Connectors: Virtual-1 (connected)" "$results/wrong.log"; then
  pass "D1 an unknown connector lists the card's connectors"
else
  fail "unknown connector without the list: $(tail -2 "$results/wrong.log")"
fi

"$nookd" --display drm --socket "$socket" --log-level debug "$@" 2> "$results/nookd.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
if grep -q "through DRM" "$results/nookd.log"; then pass "nookd drives the display through DRM"; else fail "nookd did not take DRM: $(tail -3 "$results/nookd.log")"; fi

ctl enqueue --title "Build finished" --subtitle "Debug · 12.4s" --icon hammer --tint green --dwell 60 > /dev/null
for _ in $(seq 100); do ctl status | grep -q "(presented)" && break; sleep 0.1; done
sleep 0.5
ctl snapshot -o "$results/snapshot-card.png" > /dev/null && pass "snapshot of the card"
# R5: every frame is presented by a page flip and waits for that flip's event. (virtio-gpu
# completes a flip when QEMU has taken the frame rather than at an emulated vblank, so the
# interval between frames follows QEMU here; on vc4 it is the panel's refresh period.)
ctl status --json > "$results/status.json"
flips=$(sed -n 's/.*"flips":{"requested":\([0-9]*\),"completed":\([0-9]*\),"timedOut":\([0-9]*\)}.*/\1 \2 \3/p' "$results/status.json")
requested=$(echo "$flips" | cut -d' ' -f1); completed=$(echo "$flips" | cut -d' ' -f2); timed_out=$(echo "$flips" | cut -d' ' -f3)
if [ "${requested:-0}" -ge 3 ] && [ "$requested" = "$completed" ] && [ "$timed_out" = 0 ]; then
  pass "R5 all $requested animation frames were page flips, each paced by its flip event"
else
  fail "R5 flips requested/completed/timed out: ${flips:-none reported}"
fi
dump card

# A second nookd on the same card must refuse with the clear "busy" error.
if "$nookd" --display drm --socket /tmp/second.sock 2> "$results/second.log"; then
  fail "a second nookd on the same card started"
elif grep -q "busy" "$results/second.log"; then
  pass "a second nookd on the same card fails with the busy error"
else
  fail "a second nookd failed without the busy error: $(tail -2 "$results/second.log")"
fi

start=$(date +%s%N)
kill -TERM "$daemon"
wait "$daemon"
code=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
if [ "$code" = 0 ] && [ "$elapsed" -lt 2000 ]; then pass "SIGTERM: exit 0 in ${elapsed} ms"; else fail "SIGTERM: exit $code after ${elapsed} ms"; fi
sleep 0.5
dump console-after
exit $status
