"""Home Assistant's MQTT integration against nook-mqtt (SPEC B4, M1, E7), run by
HomeAssistantMQTTTests with a Python of 3.12 or later (the Debian 13 root's): a Home Assistant core
whose `mqtt` integration is added by its config flow (the broker's host and port), which then finds
the board by MQTT discovery. Its siren plays and stops a sound, and its light switches the display
off and on, each through Home Assistant's own service calls; every state the entities take is read
from Home Assistant's `state_changed` events, so a state that lasted a moment is seen. Each check
prints one line; the Swift test reads what nookd did from nookd.

    mqtt_clients.py BROKER_HOST BROKER_PORT CONFIG_DIR
"""

import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ntfy_clients import check, http, say, wait_for, with_home_assistant_started  # noqa: E402


class Events:
    """Home Assistant's websocket API: `state_changed` events as they come, and service calls."""

    def __init__(self, socket):
        self.socket, self.next_id, self.states = socket, 1, {}

    @classmethod
    async def open(cls, session, base, access):
        socket = await session.ws_connect(base.replace("http", "ws", 1) + "/api/websocket")
        check((await socket.receive_json())["type"] == "auth_required", "the websocket asks for a token")
        await socket.send_json({"type": "auth", "access_token": access})
        check((await socket.receive_json())["type"] == "auth_ok", "the websocket takes it")
        events = cls(socket)
        await events.send({"type": "subscribe_events", "event_type": "state_changed"})
        return events

    async def send(self, message):
        message["id"], self.next_id = self.next_id, self.next_id + 1
        await self.socket.send_json(message)
        return message["id"]

    async def call(self, domain, service, entity, **data):
        asked = await self.send({"type": "call_service", "domain": domain, "service": service,
                                 "service_data": data, "target": {"entity_id": entity}})
        while True:
            message = await self.next()
            if message.get("id") == asked and message.get("type") == "result":
                check(message.get("success"), f"{domain}.{service} {data} is carried out: {message.get('error')}")
                return

    async def next(self):
        message = await asyncio.wait_for(self.socket.receive_json(), 120)
        if message.get("type") == "event":
            data = message["event"]["data"]
            if data.get("new_state"):
                self.states.setdefault(data["entity_id"], []).append(data["new_state"]["state"])
        return message

    async def until(self, entity, states):
        """Until `entity` has taken each of `states` in turn since the last call (a bound on a hang)."""
        seen = self.states.setdefault(entity, [])
        while True:
            found, index = True, 0
            for state in states:
                try:
                    index = seen.index(state, index) + 1
                except ValueError:
                    found = False
                    break
            if found:
                check(True, f"{entity}: {' then '.join(states)} (states seen: {seen})")
                seen.clear()
                return
            await self.next()


async def drive(base, access, siren, light):
    import aiohttp
    async with aiohttp.ClientSession() as session:
        events = await Events.open(session, base, access)
        await events.call("siren", "turn_on", siren, tone="alarm", volume_level=0.5)
        await events.until(siren, ["on"])
        await events.call("siren", "turn_off", siren)
        await events.until(siren, ["off"])
        # A chime that ends by itself: on, then off, with no call between.
        await events.call("siren", "turn_on", siren, tone="doorbell")
        await events.until(siren, ["on", "off"])
        await events.call("light", "turn_off", light)
        await events.until(light, ["off"])
        await events.call("light", "turn_on", light)
        await events.until(light, ["on"])
        await events.socket.close()


def with_home_assistant(host, port, config):
    with with_home_assistant_started(config) as (base, access):
        status, flow = http("POST", base + "/api/config/config_entries/flow", {"handler": "mqtt"}, access)
        check(status == 200 and flow.get("step_id") == "broker", f"mqtt's flow asks for the broker: {flow}")
        status, entry = http("POST", base + f"/api/config/config_entries/flow/{flow['flow_id']}",
                             {"broker": host, "port": int(port)}, access)
        check(status == 200 and entry.get("type") == "create_entry", f"mqtt's entry is made: {entry.get('type')} {entry.get('errors')}")

        def entity(domain):
            return next((s for s in http("GET", base + "/api/states", None, access)[1]
                         if s["entity_id"].startswith(domain + ".") and s["state"] != "unavailable"), None)
        siren = wait_for(lambda: entity("siren"))
        check(siren is not None, f"discovery made the board's siren: {siren}")
        tones = siren["attributes"].get("available_tones") or []
        check("alarm" in tones and "doorbell" in tones, f"its tones are Nook's chimes: {tones}")
        light = wait_for(lambda: entity("light"))
        check(light is not None and light["state"] == "on", f"and its display's light, on: {light}")
        asyncio.run(drive(base, access, siren["entity_id"], light["entity_id"]))
        say("DONE")


if __name__ == "__main__":
    with_home_assistant(*sys.argv[1:4])
