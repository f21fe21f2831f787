#!/bin/sh
# DRM's single-buffer path (D1): with `page_flip = false` nookd draws each frame into the one
# buffer the CRTC scans out and calls drmModeDirtyFB. virtio-gpu keeps the guest's buffer apart
# from the host's copy and sends it over only for a dirty framebuffer (or a plane update), so a
# card on the glass, and then the same card redrawn by an update, are there only if dirty-fb
# reached the kernel and did its work. (Slides there are paced by the clock, not by flip events;
# under TCG a frame takes longer than a refresh, so that pacing is checked by unit tests only.)
. "$(dirname "$0")/lib.sh"
[ -e /dev/dri/card0 ] || modprobe virtio-gpu
for _ in $(seq 50); do [ -e /dev/dri/card0 ] && break; sleep 0.1; done
printf '[display]\npage_flip = false\n' > /tmp/dirtyfb.toml
"$nookd" --config /tmp/dirtyfb.toml --display drm --socket "$socket" 2> "$results/nookd-dirtyfb.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
if grep -q "pageFlips=false .*through DRM" "$results/nookd-dirtyfb.log"; then
  pass "D1 page_flip = false: nookd draws in place on the DRM card (one buffer, dirty-fb)"
else
  fail "D1 page_flip = false was not taken: $(tail -3 "$results/nookd-dirtyfb.log")"
fi
ctl enqueue --title "Backup complete" --subtitle "412 files · 3.1 GB" --icon checkmark --tint green --key backup --dwell 60 > /dev/null
for _ in $(seq 100); do ctl status | grep -q "(presented)" && break; sleep 0.1; done
sleep 0.5
ctl status --json > "$results/dirtyfb-status.json"
if grep -q '"flips":null' "$results/dirtyfb-status.json" && ! grep -q "drmModeDirtyFB" "$results/nookd-dirtyfb.log"; then
  pass "D1 the slide went out without page flips and every drmModeDirtyFB succeeded"
else
  fail "D1 dirty-fb presents: $(grep -o '"flips":[^}]*}*' "$results/dirtyfb-status.json"); $(grep -m1 "drmModeDirtyFB" "$results/nookd-dirtyfb.log")"
fi
ctl snapshot -o "$results/snapshot-dirtyfb-card.png" > /dev/null
dump dirtyfb-card
# The card redrawn in place (U1): one more present into the same buffer, marked dirty again.
ctl update --key backup --title "Backup verified" --progress 1 > /dev/null
# Status has the new title as soon as the queue takes it; the redrawn frame comes after. Until
# nookd's snapshot (its newest frame) differs, and a moment more for that frame's present.
end=$(( $(date +%s) + 20 ))
while ctl snapshot -o /tmp/dirtyfb-now.png > /dev/null && cmp -s /tmp/dirtyfb-now.png "$results/snapshot-dirtyfb-card.png" \
      && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
sleep 1
ctl snapshot -o "$results/snapshot-dirtyfb-updated.png" > /dev/null
dump dirtyfb-updated
kill -TERM "$daemon"
wait "$daemon" || fail "nookd (dirty-fb) exited $?"
rm -f "$socket"
exit $status
