// The one C entry point for cairo + pango. Only NookRender imports it (internal import).
#include <pango/pangocairo.h>
#include <cairo.h>
