#!/bin/sh
# Smoke test of the harness itself: the kernel's DRM device appears and reports its connector.
modprobe virtio-gpu || exit 1
for i in 1 2 3 4 5 6 7 8 9 10; do [ -e /dev/dri/card0 ] && break; sleep 0.3; done
ls -l /dev/dri
for c in /sys/class/drm/card*-*; do echo "$c $(cat $c/status) $(head -1 $c/modes)"; done
