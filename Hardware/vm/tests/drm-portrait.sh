#!/bin/sh
# R6: a natively portrait 400x1280 bar panel used in landscape: nookd draws at 1280x400 and
# turns each frame 90 degrees; the same checks as drm.sh.
exec "$(dirname "$0")/drm.sh" --rotation 90
