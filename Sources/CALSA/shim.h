// The one C entry point for alsa-lib (Debian libasound2-dev). Only NookAudio imports it (internal import).
#include <alsa/asoundlib.h>
