// The one C entry point for zlib (Debian zlib1g-dev). NookPNG (deflate) and NookHTTP's icon check
// (inflate) import it, internal imports.
#include <zlib.h>
