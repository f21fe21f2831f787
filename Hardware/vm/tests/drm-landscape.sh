#!/bin/sh
# A 1280x400 panel: drm.sh's checks, then the single-buffer dirty-fb path (drm-dirtyfb.sh),
# idle blanking (drm-blank.sh), then the display unplugged and plugged back in
# (drm-unplug.sh), all in one boot.
. "$(dirname "$0")/lib.sh"
"$(dirname "$0")/drm.sh"
"$(dirname "$0")/drm-dirtyfb.sh"
"$(dirname "$0")/drm-blank.sh"
"$(dirname "$0")/drm-unplug.sh"
exit 0
