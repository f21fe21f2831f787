// The one C entry point for libmosquitto (2.0). Only NookMQTT imports it (internal import).
#include <mosquitto.h>
// MQTT 5 property identifiers and reason codes (session expiry, receive maximum, CONNACK reasons).
#include <mqtt_protocol.h>
