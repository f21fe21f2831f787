#!/bin/sh
# A 1280x400 panel: idle blanking (drm-blank.sh), then the display unplugged and plugged back
# in (drm-unplug.sh), in one boot (`Hardware/vm/run drm-power`).
. "$(dirname "$0")/lib.sh"
"$(dirname "$0")/drm-blank.sh"
"$(dirname "$0")/drm-unplug.sh"
exit 0
