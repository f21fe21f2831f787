#!/bin/sh
# fbdev tests inside the guest (SPEC D2, N2): nookd --display fbdev on a framebuffer (by default
# virtio-gpu's fbdev emulation, /dev/fb0, XRGB8888). The glass must equal nookd's snapshot, and
# the console's pixels must be back after SIGTERM. The caller may set drivers (modules to load),
# fbdev (the node), fb_format (what nookd must find: xrgb8888 or rgb565), screen and tag (see
# drm.sh).
. "$(dirname "$0")/lib.sh"
tag=${tag:-}
fbdev=${fbdev:-/dev/fb0}

for module in ${drivers-virtio-gpu}; do modprobe "$module" || { echo "FAIL modprobe $module"; exit 1; }; done
for _ in $(seq 50); do [ -e "$fbdev" ] && break; sleep 0.1; done
sleep 1
printf '[display]\nfbdev = "%s"\n' "$fbdev" > /tmp/fbdev.toml
console_text "Nook fbdev test: this is the text console."
dump "${tag}console-before"

"$nookd" --config /tmp/fbdev.toml --display fbdev --socket "$socket" --log-level debug 2> "$results/${tag}nookd.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
if grep -q "through fbdev (${fb_format:-xrgb8888})" "$results/${tag}nookd.log"; then
  pass "${tag}D2 nookd drives $fbdev through fbdev (${fb_format:-xrgb8888}, $(cat "/sys/class/graphics/${fbdev##*/}/bits_per_pixel") bits per pixel)"
else
  fail "${tag}nookd did not take fbdev as ${fb_format:-xrgb8888}: $(tail -3 "$results/${tag}nookd.log")"
fi
ctl enqueue --title "Backup complete" --subtitle "312 GB to nas.local" --icon checkmark.circle --tint blue --progress 1 --dwell 60 > /dev/null
for _ in $(seq 100); do ctl status | grep -q "(presented)" && break; sleep 0.1; done
sleep 0.5
ctl snapshot -o "$results/snapshot-${tag}card.png" > /dev/null && pass "${tag}snapshot of the card"
dump "${tag}card"
kill -TERM "$daemon"
wait "$daemon"
code=$?
if [ "$code" = 0 ]; then pass "${tag}SIGTERM: exit 0"; else fail "${tag}SIGTERM: exit $code"; fi
rm -f "$socket"
sleep 0.5
dump "${tag}console-after"
exit $status
