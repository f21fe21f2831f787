// The one C entry point for cairo + pango. Only NookRender imports it (internal import).
#include <pango/pangocairo.h>
#include <cairo.h>
// glibc's malloc tuning: the renderer's frames are the daemon's largest allocations, and only
// NookRender decides when they are let go (FrameMemory).
#include <malloc.h>
