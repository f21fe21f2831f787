#!/bin/sh
# Touch tests inside the guest (SPEC T1-T3, Q6, E3, U5): a touchscreen made through uinput, the
# kernel's evdev between it and nookd (mock display), in two rotations: a 1280x400 bar as it
# is, and a natively portrait 400x1280 panel used in landscape (display.rotation = 90), where a
# sideways swipe of the picture runs along the glass's long side. touch-panel.py makes the
# fingers and judges by nookd's answers and events; the first run also prints the figures.
. "$(dirname "$0")/lib.sh"

modprobe uinput 2> /dev/null
modprobe evdev 2> /dev/null
[ -c /dev/uinput ] || { fail "T1 /dev/uinput exists in the guest (CONFIG_INPUT_UINPUT)"; exit 1; }

run() {
  panel=$1 rotation=$2 extra=$3
  cat > /tmp/touch.toml <<TOML
[touch]
enabled = true   # the panel is made after nookd starts

[history]
recall_dwell_ms = 500
recall_entries = 2
TOML
  log=$results/nookd-touch-$rotation.log
  "$nookd" --config /tmp/touch.toml --display mock --size "$panel" --rotation "$rotation" --socket "$socket" --journal none 2> "$log" &
  daemon=$!
  for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
  python3 "$repo/Hardware/vm/tests/touch-panel.py" "$socket" "$panel" "$rotation" "$log" $extra || status=1
  kill -TERM "$daemon"
  wait "$daemon"
  code=$?
  if [ "$code" = 0 ]; then pass "N2 nookd with a touchscreen stops cleanly ($rotation°)"; else fail "nookd exited $code ($rotation°)"; fi
  rm -f "$socket"
}

run 1280x400 0 --figures
run 400x1280 90
exit $status
