#!/bin/sh
# R6: a natively portrait 400x1280 bar panel used in landscape. The guest boots with
# video=Virtual-1:panel_orientation=right_side_up, so the kernel puts the "panel orientation"
# property on the connector (the panel's right side is the case's top: content turns 90°
# clockwise, as fbcon turns the console). nookd draws at 1280x400 and turns each frame by the
# property alone (drm.sh's checks), then by a configured rotation of 180° on top of it.
. "$(dirname "$0")/lib.sh"
"$(dirname "$0")/drm.sh"
grep -q "panel orientation: 90" "$results/test-display.log" \
  && pass "R6 nookd reads the connector's panel orientation as a 90° turn" \
  || fail "R6 panel orientation: $(head -1 "$results/test-display.log")"

# The configured rotation on top: 180° + the panel's 90° = 270° clockwise on the glass.
"$nookd" --display drm --socket "$socket" --rotation 180 2> "$results/nookd-180.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
ctl enqueue --title "Build finished" --subtitle "Debug · 12.4s" --icon hammer --tint green --dwell 60 > /dev/null
for _ in $(seq 100); do ctl status | grep -q "(presented)" && break; sleep 0.1; done
sleep 0.5
ctl snapshot -o "$results/snapshot-card-180.png" > /dev/null && pass "R6 snapshot of the card with rotation 180 on the panel's orientation"
dump card-180
kill -TERM "$daemon"
wait "$daemon" || fail "nookd --rotation 180 exited $?"
rm -f "$socket"
exit $status
