// The one C entry point for libmosquitto (2.0). Only NookMQTT imports it (internal import).
#include <mosquitto.h>
