"""ntfy's real clients against nook-http (SPEC M5), run by NtfyRealClientsTests with a Python
of 3.12 or later (the Debian 13 root's): `aiontfy` directly, and a Home Assistant core set up
through its REST API with the `ntfy` integration added by its config flow. Each check prints
one line; the Swift test reads what became of the cards from nookd itself.

    ntfy_clients.py aiontfy URL TOKEN TOPIC
    ntfy_clients.py homeassistant URL TOKEN TOPIC CONFIG_DIR
"""

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request


def say(line):
    print(f"ntfy_clients: {line}", flush=True)


def check(condition, what):
    if not condition:
        say(f"FAILED {what}")
        sys.exit(1)
    say(f"ok {what}")


async def with_aiontfy(url, token, topic):
    from aiohttp import ClientSession
    from aiontfy import Message, Ntfy
    from aiontfy.exceptions import (NtfyConnectionError, NtfyException, NtfyForbiddenAccessError, NtfyNotFoundPageError,
                                    NtfyUnauthorizedAuthenticationError)

    async with ClientSession() as session:
        ntfy = Ntfy(url, session, token=token)
        account = await ntfy.account()
        check(account.username == "aiontfy" and account.role == "user" and account.stats.messages == 0,
              f"account: {account.username} {account.role}")
        issued = await Ntfy(url, session, username="aiontfy", password=token).generate_token("aiontfy")
        check(issued.token == token and issued.label == "aiontfy", "generate_token gives back the token presented")
        check(await ntfy.can_subscribe([topic]), "can_subscribe (GET /TOPIC/auth)")
        sent = await ntfy.publish(Message(topic=topic, title="aiontfy card", message="from aiontfy", tags=["warning"],
                                          priority=4, sequence_id="aiontfy-seq"))
        check(sent.topic == topic and sent.title == "aiontfy card" and sent.sequence_id == "aiontfy-seq", f"publish: {sent.id}")
        cleared = await ntfy.clear(topic, "aiontfy-seq")
        check(cleared.event.value == "message_clear", "clear")
        second = await ntfy.publish(Message(topic=topic, title="aiontfy second", message="to delete", sequence_id="aiontfy-del"))
        check(second.sequence_id == "aiontfy-del", "publish a second")
        deleted = await ntfy.delete(topic, "aiontfy-del")
        check(deleted.event.value == "message_delete", "delete")
        try:
            await Ntfy(url, session, token="nook_notAToken").account()
            check(False, "a wrong token is refused")
        except NtfyUnauthorizedAuthenticationError as e:
            check(e.http == 401 and e.code == 40101 and "not one nook-http knows" in e.error, f"a wrong token: {e.code} {e.error}")
        try:
            await Ntfy(url, session, token=token).can_subscribe(["v1"])
            say("v1 is a topic here")
        except NtfyException as e:
            say(f"auth of v1: {type(e).__name__}")
        try:
            await ntfy.publish(Message(topic="healthz", message="x"))
            check(False, "an own path is no topic")
        except NtfyNotFoundPageError as e:
            check(e.code == 40401 and "healthz" in e.error, f"an own path: {e.code} {e.error}")
        try:
            await Ntfy(url, session, token=os.environ["NOOK_READ_TOKEN"]).publish(Message(topic=topic, message="x"))
            check(False, "a read token may not publish")
        except NtfyForbiddenAccessError as e:
            check(e.code == 40301 and "publish" in e.error, f"a read token publishing: {e.code} {e.error}")
        try:
            await asyncio.wait_for(ntfy.subscribe([topic], lambda _: None), 30)
            check(False, "a subscription is refused")
        except NtfyConnectionError as e:
            check("501" in repr(e.__cause__), f"subscribe: refused ({e.__cause__!r})")


def http(method, url, body=None, token=None, form=False):
    headers = {}
    data = None
    if body is not None:
        if form:
            data = "&".join(f"{k}={urllib.request.quote(v)}" for k, v in body.items()).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        else:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            text = answer.read().decode()
            return answer.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def wait_for(what, tries=240):
    """what() until it is truthy, at most `tries` half-seconds: a bound on a hang, never a judge."""
    for _ in range(tries):
        found = what()
        if found:
            return found
        time.sleep(0.5)
    return what()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_home_assistant(config):
    """Home Assistant on a free port: its process, its base URL, once it answers. The port is free
    when chosen and may be taken before Home Assistant binds it (it then runs on without its HTTP
    server, answering nothing): that start is stopped and another port tried."""
    for _ in range(3):
        port = free_port()
        with open(os.path.join(config, "configuration.yaml"), "w") as f:
            f.write(f"http:\n  server_host: 127.0.0.1\n  server_port: {port}\n")
        log = open(os.path.join(config, "hass.out"), "w")
        # home_assistant_site/sitecustomize.py: the bound of its LaMetric client (it says why).
        site = os.path.join(os.path.dirname(os.path.abspath(__file__)), "home_assistant_site")
        hass = subprocess.Popen([sys.executable, "-m", "homeassistant", "--config", config, "--skip-pip"], stdout=log,
                                stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                                         PYTHONPATH=os.pathsep.join(filter(None, [site, os.environ.get("PYTHONPATH")]))))
        log.close()
        base = f"http://127.0.0.1:{port}"
        while True:
            if hass.poll() is not None:
                check(False, f"Home Assistant ended with {hass.returncode} before it answered")
            if "Failed to create HTTP server" in read(os.path.join(config, "home-assistant.log")):
                say(f"Home Assistant could not bind port {port} (taken since it was chosen): another port")
                stop_home_assistant(hass)
                with open(os.path.join(config, "home-assistant.log"), "w"):
                    pass
                break
            try:
                status, onboarding = http("GET", base + "/api/onboarding")
                if status == 200:
                    return hass, base
            except OSError:
                pass
            time.sleep(0.5)
    check(False, "Home Assistant could not bind a free port in three tries")


def stop_home_assistant(hass):
    hass.terminate()
    try:
        hass.wait(60)
    except subprocess.TimeoutExpired:
        hass.kill()


@contextlib.contextmanager
def with_home_assistant_started(config):
    """A Home Assistant core on a free port with its config in `config`, onboarded: yields its
    base URL and an access token, and stops it at the end. lametric_clients.py uses it too."""
    started = time.monotonic()
    hass, base = start_home_assistant(config)
    try:
        say(f"Home Assistant answers after {time.monotonic() - started:.1f} s")
        client = base + "/"
        status, user = http("POST", base + "/api/onboarding/users",
                            {"client_id": client, "name": "Nook", "username": "nook", "password": "nook-test-pw", "language": "en"})
        check(status == 200 and "auth_code" in user, f"onboarding user: {status}")
        status, tokens = http("POST", base + "/auth/token",
                              {"grant_type": "authorization_code", "code": user["auth_code"], "client_id": client}, form=True)
        check(status == 200, f"auth token: {status}")
        yield base, tokens["access_token"]
    finally:
        stop_home_assistant(hass)


def with_home_assistant(url, token, topic, config):
    with with_home_assistant_started(config) as (base, access):
        status, flow = http("POST", base + "/api/config/config_entries/flow", {"handler": "ntfy"}, access)
        check(status == 200 and flow.get("step_id") == "user", f"ntfy's flow starts: {flow}")
        wrong = {"url": url, "verify_ssl": False, "auth": {"username": "homeassistant", "password": "nook_notAToken"}}
        status, refused = http("POST", base + f"/api/config/config_entries/flow/{flow['flow_id']}", wrong, access)
        check(status == 200 and refused.get("errors") == {"base": "invalid_auth"}, f"a wrong token: {refused.get('errors')}")
        right = {"url": url, "verify_ssl": False, "auth": {"username": "homeassistant", "password": token}}
        status, entry = http("POST", base + f"/api/config/config_entries/flow/{flow['flow_id']}", right, access)
        check(status == 200 and entry.get("type") == "create_entry", f"ntfy's entry is made: {entry.get('type')} {entry.get('errors')}")
        entry_id = entry["result"]["entry_id"]
        status, sub = http("POST", base + "/api/config/config_entries/subentries/flow", {"handler": [entry_id, "topic"]}, access)
        check(status == 200, f"the topic subentry's flow starts: {sub}")
        if sub.get("type") == "menu":
            status, sub = http("POST", base + f"/api/config/config_entries/subentries/flow/{sub['flow_id']}",
                               {"next_step_id": "add_topic"}, access)
        status, sub = http("POST", base + f"/api/config/config_entries/subentries/flow/{sub['flow_id']}",
                           {"topic": topic, "filter": {}}, access)
        check(status == 200 and sub.get("type") == "create_entry", f"the topic {topic} is added: {sub.get('type')} {sub.get('errors')}")
        entity = wait_for(lambda: next((s["entity_id"] for s in http("GET", base + "/api/states", None, access)[1]
                                        if s["entity_id"].startswith("notify.") and s["state"] != "unavailable"), None))
        check(entity is not None, f"the notify entity: {entity}")
        status, _ = http("POST", base + "/api/services/notify/send_message",
                         {"entity_id": entity, "title": "Washer done", "message": "from Home Assistant"}, access)
        check(status == 200, f"notify.send_message: {status}")
        status, _ = http("POST", base + "/api/services/ntfy/publish",
                         {"entity_id": entity, "title": "Door open", "message": "front door", "priority": 5,
                          "tags": ["warning"], "sequence_id": "ha-door"}, access)
        check(status == 200, f"ntfy.publish: {status}")
        status, answer = http("POST", base + "/api/services/ntfy/clear", {"entity_id": entity, "sequence_id": "ha-door"}, access)
        check(status == 200, f"ntfy.clear: {status} {answer}")
        status, _ = http("POST", base + "/api/services/ntfy/publish",
                         {"entity_id": entity, "title": "Window open", "message": "kitchen", "sequence_id": "ha-window"}, access)
        check(status == 200, f"ntfy.publish a second: {status}")
        status, answer = http("POST", base + "/api/services/ntfy/delete", {"entity_id": entity, "sequence_id": "ha-window"}, access)
        check(status == 200, f"ntfy.delete: {status} {answer}")
        status, answer = http("POST", base + "/api/services/ntfy/publish",
                              {"entity_id": entity, "message": "x", "sequence_id": "no spaces allowed"}, access)
        check(status >= 400, f"a bad sequence id is refused: {status}")
        # Home Assistant names the problem in Nook's words (ntfy's error body), not "unknown".
        said = wait_for(lambda: [line for line in read(os.path.join(config, "home-assistant.log")).splitlines()
                                 if "invalid_field (sequence_id)" in line])
        check(said, f"Home Assistant's log says Nook's words: {said[:1]}")
        # The event entity's websocket is refused: the entity goes unavailable, the rest works on.
        event = "event." + entity.split(".", 1)[1]
        state = wait_for(lambda: http("GET", base + f"/api/states/{event}", None, access)[1].get("state") == "unavailable")
        check(state, f"{event} is unavailable: the board relays no messages")
        print("DONE", flush=True)


if __name__ == "__main__":
    kind, url, token, topic = sys.argv[1:5]
    if kind == "aiontfy":
        asyncio.run(with_aiontfy(url, token, topic))
        print("DONE", flush=True)
    else:
        with_home_assistant(url, token, topic, sys.argv[5])
