// The one C entry point for zlib (Debian zlib1g-dev). Only NookPNG imports it (internal import).
#include <zlib.h>
