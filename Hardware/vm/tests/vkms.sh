#!/bin/sh
# R5 against a real vblank: the kernel's vkms (built out of tree by the harness; Debian does not
# build it) emulates a 60 Hz vblank with a kernel timer. nookd slides a card in and out on it
# while the kernel's own DRM trace events record every vblank (drm_vblank_event: its sequence
# and timestamp) and every flip event handed to nookd (drm_vblank_event_delivered); the host
# reads the trace (frame_interval_ms, skipped vblanks).
. "$(dirname "$0")/lib.sh"
modprobe drm_kms_helper && modprobe drm_shmem_helper && insmod "$repo/.build-vm/vkms/vkms.ko" \
  || { fail "vkms: load ($(dmesg | tail -2 | tr '\n' ' '))"; exit 1; }
vkms_card=
for _ in $(seq 50); do
  for node in /sys/class/drm/card[0-9]*; do
    case "$node" in *-*) continue ;; esac
    # vkms's card hangs off a platform device of that name (no driver is bound to it).
    [ "$(basename "$(readlink -f "$node/device")")" = vkms ] && vkms_card=/dev/dri/${node##*/}
  done
  [ -n "$vkms_card" ] && break; sleep 0.1
done
[ -n "$vkms_card" ] || { fail "vkms: no card ($(ls /sys/class/drm | tr '\n' ' '))"; exit 1; }
tracing=/sys/kernel/tracing
mount -t tracefs nodev "$tracing" 2> /dev/null || true
echo 0 > "$tracing/tracing_on"; : > "$tracing/trace"
echo 1 > "$tracing/events/drm/drm_vblank_event/enable"
echo 1 > "$tracing/events/drm/drm_vblank_event_delivered/enable"
printf '[display]\ncard = "%s"\n' "$vkms_card" > /tmp/vkms.toml
"$nookd" --config /tmp/vkms.toml --display drm --socket "$socket" 2> "$results/nookd-vkms.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
echo 1 > "$tracing/tracing_on"
ctl enqueue --title "Frame pacing" --subtitle "vkms, 60 Hz" --icon clock --tint teal --dwell 1 > /dev/null
for _ in $(seq 200); do ctl status | grep -q "idle, 0 pending" && break; sleep 0.1; done
echo 0 > "$tracing/tracing_on"
cp "$tracing/trace" "$results/vkms-trace.txt"
ctl status --json > "$results/vkms-status.json"
if grep -q "through DRM" "$results/nookd-vkms.log" && grep -q "drm_vblank_event_delivered" "$results/vkms-trace.txt"; then
  pass "R5 nookd drives vkms ($vkms_card) and its flips complete at vkms's vblanks ($(grep -c drm_vblank_event_delivered "$results/vkms-trace.txt") flip events in the kernel's trace)"
else
  fail "vkms: $(tail -2 "$results/nookd-vkms.log" | tr '\n' ' '); $(grep -c . "$results/vkms-trace.txt") trace lines"
fi
kill -TERM "$daemon"
wait "$daemon" || fail "nookd (vkms) exited $?"
rm -f "$socket"
exit $status
