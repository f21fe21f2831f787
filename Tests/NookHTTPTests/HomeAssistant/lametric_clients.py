"""LaMetric's real clients against nook-http's LaMetric API (SPEC M4), run by LaMetricRealClientsTests
with a Python of 3.12 or later (the Debian 13 root's): `demetriek` directly, and a Home Assistant
core whose `lametric` integration is added by its config flow's manual entry (host and API key).
The host is a loopback address whose port 4343 nook-http serves over TLS, as LaMetric's clients
call it. Each check prints one line; the Swift test reads what became of the cards from nookd.

    lametric_clients.py demetriek HOST KEY NATIVE_URL
    lametric_clients.py homeassistant HOST KEY NATIVE_URL CONFIG_DIR
"""

import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ntfy_clients import check, http, say, wait_for, with_home_assistant_started  # noqa: E402


def showing(native):
    """The app the rotation shows, as nookd says it (through nook-http's native API)."""
    status, answer = http("GET", native + "/api/v1/status", None, os.environ["NOOK_READ_TOKEN"])
    return (answer.get("apps") or {}).get("showing") if status == 200 else None


async def with_demetriek(host, key, native):
    from demetriek import (Chart, Goal, GoalData, LaMetricAuthenticationError, LaMetricDevice, Model, Notification,
                           NotificationIconType, NotificationPriority, NotificationSound, Simple, Sound)

    # demetriek's own bound is 8 s a request: a loaded test machine is slow, not broken.
    async with LaMetricDevice(host=host, api_key=key, request_timeout=120) as lametric:
        device = await lametric.device()
        check(device.model == "LM 37X8" and device.serial_number and str(device.wifi.ip) == host,
              f"device: {device.name} {device.model} {device.serial_number} {device.wifi.ip}")
        check(device.display.width > 0 and 0 <= device.display.brightness <= 100 and device.audio and not device.audio.available,
              f"display {device.display.width}x{device.display.height} at {device.display.brightness}%, no audio")
        text = await lametric.notify(notification=Notification(
            priority=NotificationPriority.WARNING, icon_type=NotificationIconType.INFO,
            model=Model(cycles=1, frames=[Simple(text="demetriek text", icon="a7956"), Simple(text="second frame")],
                        sound=Sound(sound=NotificationSound.WIN))))
        # LaMetric answers the id as a string of digits; demetriek passes it on as it came.
        check(str(text).isdigit(), f"a text notification: id {text}")
        goal = await lametric.notify(notification=Notification(
            model=Model(frames=[Simple(text="demetriek goal"), Goal(data=GoalData(start=0, current=30, end=120, unit="km"))])))
        chart = await lametric.notify(notification=Notification(
            priority=NotificationPriority.CRITICAL, model=Model(cycles=0, frames=[Chart(data=[1, 5, 3, 9, 2])])))
        check(goal != text and chart != goal, f"goal {goal} and chart {chart} notifications")
        queue = await lametric.notification_queue()
        ids = [int(n.notification_id) for n in queue]
        check({int(text), int(goal), int(chart)} <= set(ids), f"the queue lists them: {ids}")
        # Between two cards (one ended, the next sliding in) the glass shows none, as a LaMetric
        # between notifications: the chart stays until dismissed, so one is on the glass soon.
        current = await lametric.notification_current()
        for _ in range(120):
            if current is not None:
                break
            await asyncio.sleep(0.25)
            current = await lametric.notification_current()
        check(current is not None and int(current.notification_id) in ids, f"current: {current and current.notification_id}")
        await lametric.dismiss_notification(notification_id=goal)
        check(int(goal) not in [int(n.notification_id) for n in await lametric.notification_queue()], "the goal notification is dismissed")
        display = await lametric.display(brightness=40)
        check(display.brightness == 40 and display.brightness_mode.value == "manual",
              f"display(brightness=40) answers the display at {display.brightness}% ({display.brightness_mode})")
        audio = await lametric.audio(volume=30)
        check(not audio.available, "audio(volume=30) answers: no audio")
        # The rotation turns once no card holds the glass (the chart stays until dismissed).
        await lametric.dismiss_all_notifications()
        first = wait_for(lambda: showing(native))
        check(await lametric.notification_queue() == [], "dismiss_all_notifications empties the queue")
        await lametric.app_next()
        after_next = wait_for(lambda: showing(native) not in (None, first) and showing(native))
        await lametric.app_previous()
        back = wait_for(lambda: showing(native) == first and first)
        check(after_next and back, f"apps: {first} -> next {after_next} -> previous {showing(native)}")
        try:
            await LaMetricDevice(host=host, api_key="nook_notAToken", request_timeout=120, session=lametric.session).device()
            check(False, "a wrong key is refused")
        except LaMetricAuthenticationError as e:
            check(True, f"a wrong key: {e}")


def with_home_assistant(host, key, native, config):
    with with_home_assistant_started(config) as (base, access):
        status, flow = http("POST", base + "/api/config/config_entries/flow", {"handler": "lametric"}, access)
        check(status == 200 and flow.get("type") == "menu", f"lametric's flow starts: {flow.get('type')} {flow.get('step_id')}")
        url = base + f"/api/config/config_entries/flow/{flow['flow_id']}"
        status, form = http("POST", url, {"next_step_id": "manual_entry"}, access)
        check(status == 200 and form.get("step_id") == "manual_entry", f"manual entry: {form.get('step_id')}")
        status, refused = http("POST", url, {"host": host, "api_key": "nook_notAToken"}, access)
        check(status == 200 and refused.get("type") == "form" and refused.get("errors"), f"a wrong key: {refused.get('errors')}")
        status, entry = http("POST", url, {"host": host, "api_key": key}, access)
        check(status == 200 and entry.get("type") == "create_entry", f"lametric's entry is made: {entry.get('type')} {entry.get('errors')}")

        def states():
            return http("GET", base + "/api/states", None, access)[1]

        def entity(prefix, suffix):
            return next((s["entity_id"] for s in states() if s["entity_id"].startswith(prefix) and s["entity_id"].endswith(suffix)
                         and s["state"] != "unavailable"), None)

        brightness = wait_for(lambda: entity("number.", "_brightness"))
        check(brightness is not None, f"the brightness entity: {brightness}")
        volume = entity("number.", "_volume")
        check(volume is not None, f"the volume entity: {volume}")
        next_app, previous_app = entity("button.", "_next_app"), entity("button.", "_previous_app")
        check(next_app and previous_app, f"the app buttons: {next_app} {previous_app}")
        status, devices = http("POST", base + "/api/template", {"template": "{{ device_id('%s') | tojson }}" % brightness}, access)
        device_id = devices if isinstance(devices, str) else None
        check(status == 200 and device_id, f"the device: {device_id}")
        status, _ = http("POST", base + "/api/services/lametric/message",
                         {"device_id": device_id, "message": "HA message", "icon": "i120", "cycles": 2, "priority": "warning",
                          "icon_type": "alert"}, access)
        check(status == 200, f"lametric.message: {status}")
        status, _ = http("POST", base + "/api/services/lametric/chart", {"device_id": device_id, "data": [4, 8, 15, 16, 23, 42]}, access)
        check(status == 200, f"lametric.chart: {status}")
        # The legacy notify service is named after the entry, as the entities are.
        notify = brightness.split(".", 1)[1].removesuffix("_brightness")
        status, _ = http("POST", base + f"/api/services/notify/{notify}", {"message": "HA notify"}, access)
        check(status == 200, f"notify.{notify}: {status}")
        status, _ = http("POST", base + "/api/services/number/set_value", {"entity_id": brightness, "value": 40}, access)
        check(status == 200, f"number.set_value brightness 40: {status}")
        shown = wait_for(lambda: next((s["state"] for s in states() if s["entity_id"] == brightness and s["state"] in ("40", "40.0")), None))
        check(shown is not None, f"the brightness entity reads the 40 it set: {[s['state'] for s in states() if s['entity_id'] == brightness]}")
        status, _ = http("POST", base + "/api/services/number/set_value", {"entity_id": volume, "value": 30}, access)
        check(status == 200, f"number.set_value volume 30: {status}")
        first = wait_for(lambda: showing(native))
        status, _ = http("POST", base + "/api/services/button/press", {"entity_id": next_app}, access)
        after_next = wait_for(lambda: showing(native) not in (None, first) and showing(native))
        status_previous, _ = http("POST", base + "/api/services/button/press", {"entity_id": previous_app}, access)
        back = wait_for(lambda: showing(native) == first and first)
        check(status == 200 and status_previous == 200 and after_next and back,
              f"buttons: {first} -> next {after_next} -> previous {showing(native)}")
        print("DONE", flush=True)


if __name__ == "__main__":
    kind, host, key, native = sys.argv[1:5]
    if kind == "demetriek":
        asyncio.run(with_demetriek(host, key, native))
        print("DONE", flush=True)
    else:
        with_home_assistant(host, key, native, sys.argv[5])
