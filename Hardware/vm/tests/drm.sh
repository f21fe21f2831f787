#!/bin/sh
# DRM tests inside the guest (SPEC D1, R5, R6, N2). Runs nookd --display drm on virtio-gpu and
# asks the host for screendumps (QMP) through /mnt/results: "dump-NAME.request" in, the host
# writes dump-NAME.ppm and dump-NAME.done. Extra arguments go to nookd (rotation).
repo=$(cd "$(dirname "$0")/../../.." && pwd)
results=/mnt/results
nookd=$repo/.build/debug/nookd
nookctl=$repo/.build/debug/nookctl
socket=/tmp/nookd.sock
status=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; status=1; }
dump() {
  : > "$results/dump-$1.request"
  for _ in $(seq 200); do [ -e "$results/dump-$1.done" ] && return 0; sleep 0.1; done
  fail "screendump $1 (the host did not answer)"
}
ctl() { "$nookctl" "$@" --socket "$socket"; }

modprobe virtio-gpu || { echo "FAIL modprobe virtio-gpu"; exit 1; }
for _ in $(seq 50); do [ -e /dev/dri/card0 ] && break; sleep 0.1; done
sleep 1
# Something on the console, so "the console is back" compares text rather than black.
printf '\n  Nook real-kernel test: this is the text console.\n  It must be back on the glass after nookd exits.\n' > /dev/tty1 2>/dev/null
sleep 0.5
dump console-before

# restore() itself, checked while nookd's descriptor is still open (the kernel would otherwise
# restore its own console when the last DRM client closes, hiding a broken restore).
if "$nookd" --test-display "$@" > "$results/test-display.log" 2>&1; then
  pass "nookd --test-display: $(tail -2 "$results/test-display.log" | head -1)"
else
  fail "nookd --test-display: $(tail -3 "$results/test-display.log")"
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
