#!/bin/sh
# Two more kernel display drivers in one boot (D1, D2): cirrus (QEMU's Cirrus VGA; its
# preferred depth is 16, so its fbdev is RGB565, and a 1024-pixel XRGB8888 line exceeds its
# pitch limit, so the driver converts nookd's frames to RGB888 for the glass) and bochs
# (bochs-display, XRGB8888, 1280x400 from its EDID). drm.sh runs on each card, fbdev.sh on
# cirrus's 16-bit framebuffer; then vkms.sh (a third card, with a real vblank).
. "$(dirname "$0")/lib.sh"
modprobe cirrus || fail "modprobe cirrus"
modprobe bochs || fail "modprobe bochs"
for _ in $(seq 50); do [ -e /dev/dri/card1 ] && break; sleep 0.1; done
# The node whose PCI device a driver took: cards and framebuffers share the device link.
node_of() {
  for node in /sys/class/$2/$3*; do
    [ "$(basename "$(readlink "$node/device/driver")")" = "$1" ] && echo "/dev/${4:-}${node##*/}" && return
  done
}
cirrus_card=$(node_of cirrus drm card dri/)
bochs_card=$(node_of bochs-drm drm card dri/)
cirrus_fb=$(node_of cirrus graphics fb)
if [ -n "$cirrus_card" ] && [ -n "$bochs_card" ] && [ -n "$cirrus_fb" ]; then
  pass "cirrus drives $cirrus_card and $cirrus_fb ($(cat "/sys/class/graphics/${cirrus_fb##*/}/bits_per_pixel") bits per pixel), bochs drives $bochs_card"
else
  fail "cards: cirrus '$cirrus_card' bochs '$bochs_card' fb '$cirrus_fb'"; ls -l /sys/class/drm /sys/class/graphics; exit 1
fi
here=$(dirname "$0")
drivers="" tag=cirrus- card=$cirrus_card connector=VGA-1 screen=cirrus "$here/drm.sh"
drivers="" tag=bochs- card=$bochs_card connector=Virtual-1 screen=bochs "$here/drm.sh"
drivers="" tag=cirrus-fbdev- fbdev=$cirrus_fb fb_format=rgb565 screen=cirrus "$here/fbdev.sh"
"$here/vkms.sh"
exit $status
