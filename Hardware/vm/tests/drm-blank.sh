#!/bin/sh
# Idle blanking on DRM (D1 blank/unblank, R4): after display.blank_after_s with only home content
# nookd turns the connector's DPMS off (the atomic helpers then switch the CRTC off: QEMU shows
# its "display not active" placeholder), and a card arriving turns it back on before its first
# frame. Read through the kernel's own reports: the connector's dpms in sysfs and the CRTC's
# "active" in the DRM debugfs state.
. "$(dirname "$0")/lib.sh"
[ -e /dev/dri/card0 ] || modprobe virtio-gpu
for _ in $(seq 50); do [ -e /dev/dri/card0 ] && break; sleep 0.1; done
dpms=/sys/class/drm/card0-Virtual-1/dpms
mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null || true
crtc_active() { sed -n 's/^[[:space:]]*active=\([01]\).*/\1/p' $(ls /sys/kernel/debug/dri/*/state | head -1) 2> /dev/null | head -1; }
# 8 s: the home's screendump (9p and the host's QMP, each polled) must land before the blank.
printf '[display]\nblank_after_s = 8\n' > /tmp/blank.toml
# The light theme: its home is bright, so the blanked glass cannot be mistaken for it.
"$nookd" --config /tmp/blank.toml --display drm --theme light --socket "$socket" 2> "$results/nookd-blank.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
sleep 0.3
home_dpms=$(cat "$dpms"); home_active=$(crtc_active)
dump home-light
end=$(( $(date +%s) + 30 ))
until [ "$(cat "$dpms")" = Off ] || [ "$(date +%s)" -ge "$end" ]; do sleep 0.1; done
sleep 0.3
blank_dpms=$(cat "$dpms"); blank_active=$(crtc_active)
if [ "$home_dpms" = On ] && [ "$home_active" = 1 ] && [ "$blank_dpms" = Off ] && [ "$blank_active" = 0 ]; then
  pass "D1 R4 idle blanking: DPMS On -> Off after blank_after_s, the CRTC inactive (kernel state)"
else
  fail "idle blanking: dpms $home_dpms -> $blank_dpms, CRTC active $home_active -> $blank_active; $(tail -3 "$results/nookd-blank.log")"
fi
dump blanked
# The home changing while blanked (a status text, the clock's next minute) must not light the
# panel, nor fail: the kernel refuses a page flip on an inactive CRTC.
ctl home text --text "Quiet now" > /dev/null
sleep 1
if [ "$(cat "$dpms")" = Off ] && ! grep -q "drmModePageFlip" "$results/nookd-blank.log"; then
  pass "D1 R4 the home redrawn while blanked keeps the panel off, without a failed page flip"
else
  fail "home while blanked: dpms $(cat "$dpms"); $(grep -m1 "drmModePageFlip" "$results/nookd-blank.log")"
fi
ctl enqueue --title "Doorbell" --subtitle "Front door" --icon bell --tint orange --dwell 60 > /dev/null
for _ in $(seq 100); do ctl status | grep -q "(presented)" && break; sleep 0.1; done
sleep 0.5
if [ "$(cat "$dpms")" = On ] && [ "$(crtc_active)" = 1 ]; then
  pass "D1 R4 a card arriving turns DPMS and the CRTC back on"
else
  fail "unblank: dpms $(cat "$dpms"), CRTC active $(crtc_active)"
fi
ctl snapshot -o "$results/snapshot-unblanked.png" > /dev/null
dump unblanked
# M1: the display switched off by a request holds DPMS and the CRTC off with the card still on
# the (dark) glass, a card sent meanwhile is told and does not light it, and on lights it again;
# switched off for a while, it lights itself once the while is over.
ctl display off > /dev/null
sleep 0.5
told=$(ctl enqueue --title "Parcel" --dwell 60 2>&1 > /dev/null)
sleep 0.5
if [ "$(cat "$dpms")" = Off ] && [ "$(crtc_active)" = 0 ] && ctl status | grep -q "switched off" \
   && echo "$told" | grep -q "the display is switched off"; then
  pass "M1 display off: DPMS Off and the CRTC inactive with a card on the glass; a card sent meanwhile is told and lights nothing"
else
  fail "display off: dpms $(cat "$dpms"), CRTC active $(crtc_active); told: $told"
fi
ctl display on > /dev/null
sleep 0.5
if [ "$(cat "$dpms")" = On ] && [ "$(crtc_active)" = 1 ]; then
  pass "M1 display on: DPMS and the CRTC back on"
else
  fail "display on: dpms $(cat "$dpms"), CRTC active $(crtc_active)"
fi
ctl display off --for 2s > /dev/null
sleep 0.3
off_for=$(cat "$dpms")
end=$(( $(date +%s) + 30 ))
until [ "$(cat "$dpms")" = On ] || [ "$(date +%s)" -ge "$end" ]; do sleep 0.2; done
if [ "$off_for" = Off ] && [ "$(cat "$dpms")" = On ] && [ "$(crtc_active)" = 1 ] && grep -q "display: on again, its time off over" "$results/nookd-blank.log"; then
  pass "M1 display off --for 2s: off, then on again by itself"
else
  fail "display off --for: dpms $off_for -> $(cat "$dpms"); $(tail -2 "$results/nookd-blank.log")"
fi
kill -TERM "$daemon"
wait "$daemon" || fail "nookd (blanking) exited $?"
rm -f "$socket"
exit $status
