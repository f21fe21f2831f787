// The one C entry point for sd-bus (libsystemd). Only NookNotify imports it (internal import).
#include <systemd/sd-bus.h>
