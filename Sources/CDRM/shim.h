// The one C entry point for libdrm. Only NookDRM imports it (internal import).
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
