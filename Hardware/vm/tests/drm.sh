#!/bin/sh
# DRM tests inside the guest (SPEC D1, R5, R6, N2). Runs nookd --display drm and asks the host
# for screendumps (QMP) through /mnt/results: "dump-NAME.request" in, the host writes
# dump-NAME.ppm and dump-NAME.done. Extra arguments go to nookd (rotation).
# The caller may set: drivers (modules to load, default virtio-gpu), card (the DRM node, else
# nookd's own choice), connector (its name, default Virtual-1), screen (the QEMU device to dump)
# and tag (prefix of this run's files, so that one boot can test several cards).
. "$(dirname "$0")/lib.sh"
tag=${tag:-}
connector=${connector:-Virtual-1}

for module in ${drivers-virtio-gpu}; do modprobe "$module" || { echo "FAIL modprobe $module"; exit 1; }; done
for _ in $(seq 50); do [ -e "${card:-/dev/dri/card0}" ] && break; sleep 0.1; done
sleep 1
# Every nookd here drives the same card: the config names it when the caller chose one.
base=/tmp/drm-${tag}base.toml
if [ -n "${card:-}" ]; then printf '[display]\ncard = "%s"\n' "$card" > "$base"; else printf '[display]\n' > "$base"; fi
console_text "Nook real-kernel test: this is the text console; it must be back after nookd exits."
dump "${tag}console-before"

# restore() itself, checked while nookd's descriptor is still open (the kernel would otherwise
# restore its own console when the last DRM client closes, hiding a broken restore).
if "$nookd" --config "$base" --test-display "$@" > "$results/${tag}test-display.log" 2>&1; then
  pass "${tag}nookd --test-display: $(tail -2 "$results/${tag}test-display.log" | head -1)"
else
  fail "${tag}nookd --test-display: $(tail -3 "$results/${tag}test-display.log")"
fi

# Clear errors (D1): without access to the card, and for a connector that does not exist.
if setpriv --reuid=65534 --regid=65534 --clear-groups "$nookd" --config "$base" --display drm --socket /tmp/denied.sock 2> "$results/${tag}denied.log"; then
  fail "${tag}nookd ran without access to the card"
elif grep -q "udev/70-nook.rules" "$results/${tag}denied.log"; then
  pass "${tag}D1 access denied names the udev rules and the nook group"
else
  fail "${tag}access denied without advice: $(tail -2 "$results/${tag}denied.log")"
fi
{ cat "$base"; printf 'connector = "HDMI-A-9"\n'; } > /tmp/wrong-connector.toml
if "$nookd" --config /tmp/wrong-connector.toml --display drm --socket /tmp/wrong.sock 2> "$results/${tag}wrong.log"; then
  fail "${tag}nookd started on a connector that does not exist"
elif grep -q "Connectors: $connector (connected)" "$results/${tag}wrong.log"; then
  pass "${tag}D1 an unknown connector lists the card's connectors"
else
  fail "${tag}unknown connector without the list: $(tail -2 "$results/${tag}wrong.log")"
fi

"$nookd" --config "$base" --display drm --socket "$socket" --log-level debug "$@" 2> "$results/${tag}nookd.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
if grep -q "through DRM" "$results/${tag}nookd.log"; then pass "${tag}nookd drives the display through DRM"; else fail "${tag}nookd did not take DRM: $(tail -3 "$results/${tag}nookd.log")"; fi

ctl enqueue --title "Build finished" --subtitle "Debug · 12.4s" --icon hammer --tint green --dwell 60 > /dev/null
for _ in $(seq 100); do ctl status | grep -q "(presented)" && break; sleep 0.1; done
sleep 0.5
ctl snapshot -o "$results/snapshot-${tag}card.png" > /dev/null && pass "${tag}snapshot of the card"
# V1: the live view's frame, upright as drawn (the run compares it with the glass).
ctl screenshot -o "$results/screenshot-${tag}card.png" > /dev/null && pass "${tag}V1 screenshot of the card (the live view's frame)"
# R5: every frame is presented by a page flip and waits for that flip's event. (virtio-gpu
# completes a flip when QEMU has taken the frame rather than at an emulated vblank, so the
# interval between frames follows QEMU here; on vc4 it is the panel's refresh period.)
ctl status --json > "$results/${tag}status.json"
flips=$(sed -n 's/.*"flips":{"requested":\([0-9]*\),"completed":\([0-9]*\),"timedOut":\([0-9]*\)}.*/\1 \2 \3/p' "$results/${tag}status.json")
requested=$(echo "$flips" | cut -d' ' -f1); completed=$(echo "$flips" | cut -d' ' -f2); timed_out=$(echo "$flips" | cut -d' ' -f3)
if [ "${requested:-0}" -ge 3 ] && [ "$requested" = "$completed" ] && [ "$timed_out" = 0 ]; then
  pass "${tag}R5 all $requested animation frames were page flips, each paced by its flip event"
else
  fail "${tag}R5 flips requested/completed/timed out: ${flips:-none reported}"
fi
dump "${tag}card"

# A second nookd on the same card must refuse with the clear "busy" error.
if "$nookd" --config "$base" --display drm --socket /tmp/second.sock 2> "$results/${tag}second.log"; then
  fail "${tag}a second nookd on the same card started"
elif grep -q "busy" "$results/${tag}second.log"; then
  pass "${tag}a second nookd on the same card fails with the busy error"
else
  fail "${tag}a second nookd failed without the busy error: $(tail -2 "$results/${tag}second.log")"
fi

start=$(date +%s%N)
kill -TERM "$daemon"
wait "$daemon"
code=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
if [ "$code" = 0 ] && [ "$elapsed" -lt 2000 ]; then pass "${tag}SIGTERM: exit 0 in ${elapsed} ms"; else fail "${tag}SIGTERM: exit $code after ${elapsed} ms"; fi
rm -f "$socket"
sleep 0.5
dump "${tag}console-after"
exit $status
