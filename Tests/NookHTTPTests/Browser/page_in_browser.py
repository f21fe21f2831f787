#!/usr/bin/env python3
"""The page (V2) in a real browser against nook-http and a real nookd: Debian's Chromium,
headless, driven by Selenium through Debian's chromedriver; or Firefox ESR, headless, driven
through the WebDriver BiDi protocol it speaks itself (Debian has no geckodriver, and Selenium
would download one). Every outcome is checked through nookd's own answers on its socket, and
every wait is for something observed (a generation, a list entry), bounded only so that a
hang fails.

Usage: page_in_browser.py --browser chromium|firefox --url http://127.0.0.1:PORT
                          --socket NOOKD.sock --artifacts DIR
                          [--part apps --read-token T --publish-token T]
With `--part apps` it checks the apps (A5) instead: listed live as they come, go and turn,
and the Previous and Next buttons refused to a read token and acting for a publish one.
Prints one `ok: ...` line per check; exits 1 with `FAIL: ...` on the first that fails.
"""
import argparse
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

# Stretched as the Swift tests' bounds are (NOOK_TEST_BOUND_SCALE, 4 in the sanitizer passes): a
# hang guard, and Firefox took over a minute to answer session.new beside the ASan pass at load 40.
BOUND = float(os.environ.get("NOOK_PAGE_TEST_BOUND", "20")) * float(os.environ.get("NOOK_TEST_BOUND_SCALE", "1"))


class Failure(Exception):
    pass


STARTED = time.monotonic()


def ok(text):
    print(f"ok: {time.monotonic() - STARTED:5.1f} s: {text}", flush=True)


def until(what, probe, bound=BOUND):
    """Waits until probe() is truthy (polled); a bound only turns a hang into a failure."""
    deadline = time.monotonic() + bound
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure("never saw " + what)
        time.sleep(0.05)


class Nookd:
    """nookd's own answers, straight from its socket (newline-delimited JSON)."""

    def __init__(self, path):
        self.path = path
        self.next_id = 0

    def call(self, op, **fields):
        self.next_id += 1
        request = dict(fields, op=op, id=self.next_id)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(BOUND)
            connection.connect(self.path)
            connection.sendall((json.dumps(request) + "\n").encode())
            line = b""
            while not line.endswith(b"\n"):
                chunk = connection.recv(65536)
                if not chunk:
                    break
                line += chunk
        answer = json.loads(line)
        if not answer.get("ok"):
            raise Failure(f"nookd refused {op}: {answer.get('error')}")
        return answer["result"]

    def ids(self):
        """Ids on the glass and waiting, every module."""
        found = []
        for module in self.call("list")["modules"]:
            if module.get("current"):
                found.append(module["current"]["id"])
            found += [activity["id"] for activity in module["pending"]]
        return found

    def titles(self):
        """Titles on the glass and waiting, every module."""
        found = []
        for module in self.call("list")["modules"]:
            if module.get("current"):
                found.append(module["current"]["title"])
            found += [activity["title"] for activity in module["pending"]]
        return found

    def suspended(self):
        return all(module["suspended"] for module in self.call("status")["modules"])

    def quiet(self):
        return self.call("quiet", set="status")

    def history_titles(self):
        return [entry["activity"]["title"] for entry in self.call("history")["entries"]]


def screen_generation(url):
    """The glass's generation now, as nook-http reports it (V1)."""
    with urllib.request.urlopen(url + "/api/v1/screen.png", timeout=BOUND) as answer:
        return int(answer.headers["X-Nook-Frame"])


class Chromium:
    """Debian's Chromium under Selenium and Debian's chromedriver."""

    name = "Chromium"

    def __init__(self):
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--window-size=1280,1600", "--lang=en-GB", "--no-first-run",
                         "--disable-extensions", "--disable-background-networking"]:
            options.add_argument(argument)
        # The console as the page's visitor would see it in the browser's tools.
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # Debian's chromedriver: Selenium Manager would otherwise try to download one.
        self.driver = webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))
        self.version = self.driver.capabilities.get("browserVersion", "?")

    def open(self, url):
        self.driver.get(url)

    def js(self, body, *arguments):
        return self.driver.execute_script(body, *arguments)

    def keys(self, *items):
        """Presses keys in turn: a string is typed key by key, a tuple is a chord."""
        chain = ActionChains(self.driver)
        for item in items:
            if isinstance(item, tuple):
                chain.key_down(item[0]).send_keys(item[1]).key_up(item[0])
            else:
                chain.send_keys(item)
        chain.perform()

    def resize(self, width, height):
        self.driver.set_window_size(width, height)

    def screenshot(self, path):
        return self.driver.save_screenshot(path)

    def console_errors(self):
        """The console's errors and warnings so far: the page's own, and loads that failed."""
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]

    def quit(self):
        self.driver.quit()


class Firefox:
    """Firefox ESR driven over WebDriver BiDi, which it serves itself on a loopback port."""

    name = "Firefox"

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="nook-page-firefox-")
        with open(os.path.join(self.profile, "user.js"), "w") as prefs:
            # Nothing but the page: no update checks, telemetry, first-run pages or portals.
            for name, value in [("app.update.enabled", "false"), ("browser.shell.checkDefaultBrowser", "false"),
                                ("datareporting.policy.dataSubmissionEnabled", "false"), ("toolkit.telemetry.enabled", "false"),
                                ("browser.startup.homepage_override.mstone", '"ignore"'), ("network.captive-portal-service.enabled", "false"),
                                ("intl.accept_languages", '"en-GB"'), ("remote.prefs.recommended", "true")]:
                prefs.write(f"user_pref(\"{name}\", {value});\n")
        self.process = subprocess.Popen(
            ["firefox-esr", "--headless", "--no-remote", "--profile", self.profile, "--remote-debugging-port=0",
             "--width=1280", "--height=1600", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            self.connect()
        except BaseException:
            self.process.kill()
            self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)
            raise

    def connect(self):
        address = None
        deadline = time.monotonic() + BOUND * 3
        while address is None:
            line = self.process.stderr.readline()
            if not line or time.monotonic() > deadline:
                raise Failure("Firefox did not say where WebDriver BiDi listens")
            if line.startswith("WebDriver BiDi listening on "):
                address = line.split()[-1]
        # The rest of its chatter is drained so that it never blocks on a full pipe.
        self.drain = subprocess.Popen(["cat"], stdin=self.process.stderr, stdout=subprocess.DEVNULL)
        self.socket = websocket.create_connection(address + "/session", timeout=BOUND * 3, suppress_origin=True)
        self.next_id = 0
        self.console = []
        self.version = self.command("session.new", capabilities={})["capabilities"]["browserVersion"]
        self.command("session.subscribe", events=["log.entryAdded"])
        # The first window never gets the (headless) system focus, so :focus and
        # :focus-visible match nothing there; a window made and activated over BiDi does.
        self.context = self.command("browsingContext.create", type="window")["context"]

    def command(self, method, **parameters):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": parameters}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("method") == "log.entryAdded":
                entry = message.get("params", {})
                if entry.get("level") in ("error", "warn"):
                    self.console.append(entry.get("text") or json.dumps(entry))
                continue
            if message.get("id") != self.next_id:
                continue
            if message.get("type") != "success":
                raise Failure(f"Firefox refused {method}: {message.get('error')}: {message.get('message')}")
            return message["result"]

    def open(self, url):
        self.command("browsingContext.navigate", context=self.context, url=url, wait="complete")
        self.command("browsingContext.activate", context=self.context)

    @staticmethod
    def value(remote):
        kind = remote.get("type")
        if kind in ("undefined", "null"):
            return None
        if kind in ("string", "boolean"):
            return remote["value"]
        if kind == "number":
            number = remote["value"]
            return number if isinstance(number, (int, float)) else float(number)
        if kind == "array":
            return [Firefox.value(item) for item in remote.get("value", [])]
        if kind == "object":
            return {key: Firefox.value(item) for key, item in remote.get("value", [])}
        raise Failure(f"a script returned a {kind}, which this driver does not read")

    def js(self, body, *arguments):
        result = self.command("script.callFunction", functionDeclaration="function () {" + body + "}",
                              arguments=[{"type": "string", "value": str(argument)} for argument in arguments],
                              target={"context": self.context}, awaitPromise=False)
        if result.get("type") == "exception":
            raise Failure("a script failed in Firefox: " + result["exceptionDetails"].get("text", "?"))
        return self.value(result["result"])

    def keys(self, *items):
        # One key (or chord) per command: Firefox runs a long sequence of Tabs in one command
        # as if only the last had moved the focus.
        for item in items:
            if isinstance(item, tuple):
                self.key_actions([{"type": "keyDown", "value": item[0]}, {"type": "keyDown", "value": item[1]},
                                  {"type": "keyUp", "value": item[1]}, {"type": "keyUp", "value": item[0]}])
            else:
                for key in item:
                    self.key_actions([{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}])

    def key_actions(self, actions):
        self.command("input.performActions", context=self.context, actions=[{"type": "key", "id": "keyboard", "actions": actions}])

    def resize(self, width, height):
        self.command("browsingContext.setViewport", context=self.context, viewport={"width": width, "height": height})

    def screenshot(self, path):
        data = self.command("browsingContext.captureScreenshot", context=self.context)["data"]
        with open(path, "wb") as shot:
            shot.write(base64.b64decode(data))
        return True

    def console_errors(self):
        """The console's errors and warnings so far (those that came with earlier commands'
        answers, and those a script call now collects)."""
        self.js("return 0")
        return list(self.console)

    def quit(self):
        try:
            self.command("session.end")
        except Exception:
            pass
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.drain.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser):
        self.browser = browser

    def js(self, body, *arguments):
        return self.browser.js(body, *arguments)

    def frame(self):
        return int(self.js("return document.getElementById('glass').dataset.frame") or 0)

    def active(self):
        """What has the keyboard focus: its id, or its data-activity for a Dismiss button."""
        return self.js("const e = document.activeElement; return e ? (e.id || (e.dataset.activity ? 'dismiss:' + e.dataset.activity : e.tagName)) : null")

    def tab_to(self, target, bound=80):
        """Presses Tab, or Shift+Tab for a control above the focus, until `target` (an id or
        'dismiss:ID') has the focus: never past the page's ends, where the focus would go to
        the browser's own bar (and in Firefox key presses after it with it)."""
        for _ in range(bound):
            where = self.js("""
                const [target] = arguments;
                const wanted = target.startsWith('dismiss:')
                    ? document.querySelector('button[data-activity="' + CSS.escape(target.slice(8)) + '"]')
                    : document.getElementById(target);
                const focused = document.activeElement;
                if (!wanted) return 'missing';
                if (wanted === focused) return 'here';
                if (focused === document.body || !focused) return 'after';
                return wanted.compareDocumentPosition(focused) & Node.DOCUMENT_POSITION_FOLLOWING ? 'before' : 'after';
            """, target)
            if where == "here":
                return
            if where == "missing":
                raise Failure(f"no {target} on the page to Tab to")
            self.browser.keys((Keys.SHIFT, Keys.TAB) if where == "before" else Keys.TAB)
        raise Failure(f"Tab never reached {target}; focus ended on {self.active()}")

    def press(self, target, key=Keys.ENTER):
        self.tab_to(target)
        self.browser.keys(key)

    def error(self):
        return self.js("const e = document.getElementById('error'); return e.hidden ? '' : e.textContent")

    def pending_titles(self):
        # Read in one script: the list is replaced as it refreshes.
        return self.js("return [...document.querySelectorAll('#pending li .what')].map((e) => e.textContent)")

    def history_texts(self):
        return self.js("return [...document.querySelectorAll('#history li')].map((e) => e.textContent)")


def run(arguments):
    nookd = Nookd(arguments.socket)
    browser = Chromium() if arguments.browser == "chromium" else Firefox()
    page = Page(browser)
    try:
        browser.open(arguments.url + "/")
        ok(f"{browser.name} {browser.version} loaded the page")

        # The live glass: the first frame arrives, then an enqueue reaches the page as a newer
        # generation, and the page follows the glass to the generation it settles on.
        first = until("the first frame on the page", page.frame)
        # The page names the frame when it sets the image's source; decoding follows.
        until("the glass image decoded", lambda: page.js("return document.getElementById('glass').naturalWidth"))
        # A blocker: it stays on the glass until the page dismisses it, however many round trips
        # a loaded machine's browser takes to get there.
        alpha = nookd.call("enqueue", activity={"title": "Alpha probe", "blocker": True})["id"]
        until("a newer frame on the page after the enqueue", lambda: page.frame() > first)
        ok(f"the glass went from frame {first} to {page.frame()} after an enqueue")

        def settled():
            glass = screen_generation(arguments.url)
            return page.frame() == glass and glass
        reached = until("the page at the glass's own generation", settled)
        ok(f"the page shows the glass's generation {reached}")

        until("Alpha probe in the page's waiting list", lambda: any("Alpha probe" in t for t in page.pending_titles()))
        ok("the waiting list shows what nookd shows")

        # Loaded, live and listing: nothing failed on the way, not even the tab's icon.
        errors = browser.console_errors()
        if errors:
            raise Failure("the console has errors after the page loaded: " + " | ".join(errors))
        ok("the console is empty")

        # Keyboard only: from the page as loaded (nothing focused yet), Tab reaches every control,
        # in the document's order.
        if page.active() != "BODY":
            raise Failure(f"something took the focus before any key was pressed: {page.active()}")
        seen = []
        outlines = {}
        for _ in range(40):
            browser.keys(Keys.TAB)
            current = page.active()
            if current in seen and current != seen[-1]:
                break
            if current == "token-forget":
                seen.append(current)
                outlines[current] = page.js("const s = getComputedStyle(document.activeElement);"
                                            " return [s.outlineStyle, parseFloat(s.outlineWidth)]")
                break
            if current not in seen:
                seen.append(current)
                outlines[current] = page.js("const s = getComputedStyle(document.activeElement);"
                                            " return [s.outlineStyle, parseFloat(s.outlineWidth)]")
        order = ["suspend", "resume", "quiet-on", "quiet-off", "quiet-until", "quiet-until-set", "test-title",
                 "test-send", "dismiss:" + alpha, "history-q", "history-search", "token", "token-save", "token-forget"]
        for control in order:
            if control not in seen:
                raise Failure(f"Tab never reaches {control}; the order was {seen}")
            if outlines[control][0] in ("none", "") or outlines[control][1] < 2:
                raise Failure(f"{control}, focused from the keyboard, shows no clear outline: {outlines[control]}")
        if [control for control in seen if control in order] != order:
            raise Failure(f"Tab goes through the controls out of order: {seen}")
        ok("Tab reaches every control with a visible focus: " + " ".join(seen))

        # Each button, pressed from the keyboard, acts: nookd says so.
        page.press("suspend")
        until("nookd suspended", nookd.suspended)
        until("the page saying suspended", lambda: page.js("return document.getElementById('state').textContent").startswith("Suspended"))
        ok("Suspend (Enter) suspended nookd, and the page says so")
        page.press("resume", Keys.SPACE)
        until("nookd resumed", lambda: not nookd.suspended())
        ok("Resume (Space) resumed nookd")
        page.press("quiet-on")
        until("nookd quiet", lambda: nookd.quiet()["quiet"])
        until("the page saying quiet", lambda: " quiet" in page.js("return document.getElementById('state').textContent").replace("not quiet", ""))
        ok("Quiet on made nookd quiet, and the page says so")
        page.press("quiet-off")
        until("nookd not quiet", lambda: not nookd.quiet()["quiet"])
        ok("Quiet off ended quiet")
        page.js("document.getElementById('quiet-until').value = '23:59'")
        page.press("quiet-until-set")
        until("nookd quiet until a time", lambda: nookd.quiet()["quiet"] and nookd.quiet().get("until"))
        ok("Quiet until 23:59 made nookd quiet until " + str(nookd.quiet()["until"]))
        page.press("quiet-off")
        until("nookd not quiet again", lambda: not nookd.quiet()["quiet"])

        page.tab_to("test-title")
        browser.keys((Keys.CONTROL, "a"), "Keyboard card")
        page.press("test-send")
        until("the test card in nookd's queue", lambda: "Keyboard card" in nookd.titles())
        ok("Send test card enqueued 'Keyboard card'")
        # Waiting behind Alpha probe, it is made a blocker: its 5 s would otherwise run out
        # before a loaded machine's browser presses its Dismiss below.
        keyboard_id = next(activity["id"] for module in nookd.call("list")["modules"]
                           for activity in module["pending"] if activity["title"] == "Keyboard card")
        nookd.call("update", activity=keyboard_id, changes={"blocker": True})
        until("the test card in the page's list", lambda: any("Keyboard card" in t for t in page.pending_titles()))

        page.press("dismiss:" + alpha)
        until("Alpha probe gone from nookd's queue", lambda: alpha not in nookd.ids())
        ending = next(entry["ending"] for entry in nookd.call("history")["entries"] if entry["activity"]["id"] == alpha)
        if ending != "dismissed":
            raise Failure(f"Alpha probe ended {ending}, not dismissed")
        until("Alpha probe gone from the page's list", lambda: not any("Alpha probe" in t for t in page.pending_titles()))
        ok("Dismiss ended Alpha probe as dismissed, and the page's list followed")

        def keyboard_on_glass():
            return next((module["current"]["id"] for module in nookd.call("list")["modules"]
                         if module.get("current") and module["current"]["title"] == "Keyboard card"), None)
        keyboard = until("the test card on the glass", keyboard_on_glass)
        until("a Dismiss button for the test card", lambda: page.js(
            "return !!document.querySelector('button[data-activity=\"' + arguments[0] + '\"]')", keyboard))
        page.press("dismiss:" + keyboard, Keys.SPACE)
        until("Keyboard card in nookd's history", lambda: "Keyboard card" in nookd.history_titles())
        ending = next(entry["ending"] for entry in nookd.call("history")["entries"] if entry["activity"]["id"] == keyboard)
        if ending != "dismissed":
            raise Failure(f"Keyboard card ended {ending}, not dismissed")
        until("the test card gone from the page's list", lambda: not any("Keyboard card" in t for t in page.pending_titles()))
        ok("Dismiss (Space) ended the test card")

        # History with search: all of it, then only what matches.
        page.press("history-search")
        until("both cards in the page's history",
              lambda: any("Alpha probe" in t for t in page.history_texts()) and any("Keyboard card" in t for t in page.history_texts()))
        page.tab_to("history-q")
        browser.keys("Keyboard" + Keys.ENTER)

        def filtered():
            texts = page.history_texts()
            return texts and all("Keyboard" in t for t in texts) and texts
        until("the history filtered to 'Keyboard'", filtered)
        ok("the history search shows only " + repr(page.history_texts()))

        # An API error is shown on the page, naming what was wrong.
        page.js("const t = document.getElementById('test-title'); t.removeAttribute('required'); t.value = ''")
        page.press("test-send")
        message = until("the API's error on the page", page.error)
        if "title" not in message:
            raise Failure(f"the error shown does not name the title: {message!r}")
        if page.js("return document.getElementById('error').getAttribute('role')") != "alert":
            raise Failure("the error box is not an alert")
        ok("an empty title shows the API's error: " + message)

        if page.js("return document.documentElement.scrollWidth > window.innerWidth + 1"):
            raise Failure("the page is wider than the desktop window")
        browser.resize(390, 844)
        if page.js("return document.documentElement.scrollWidth > window.innerWidth + 1"):
            raise Failure("the page is wider than a phone's window")
        ok("the page fits a phone's width (390 px) without scrolling sideways")
        browser.resize(1280, 1600)
        page.js("window.scrollTo(0, 0)")
        shot = os.path.join(arguments.artifacts, f"page-{arguments.browser}.png")
        if not browser.screenshot(shot):
            raise Failure("no screenshot")
        ok("screenshot " + shot)
    finally:
        browser.quit()


def run_apps(arguments):
    """The apps on the page (A5, V2): what a person sees of them follows nookd's own answers."""
    nookd = Nookd(arguments.socket)
    browser = Chromium() if arguments.browser == "chromium" else Firefox()
    page = Page(browser)

    def shown():
        """The page's apps: (name, text, meta, classes) each, read in one script."""
        return page.js("""return [...document.querySelectorAll('#apps li')].map((e) => [
            e.querySelector('.name').textContent, e.querySelector('.text').textContent,
            e.querySelector('.meta').textContent, e.className])""")

    def on_glass_in_nookd():
        return next((state["app"]["name"] for state in nookd.call("app-list")["apps"] if state.get("showing")), None)

    def on_glass_on_page():
        names = [name for name, _, meta, classes in shown() if "showing" in classes and "on the glass" in meta]
        return names[0] if len(names) == 1 else None

    def glass(name):
        """nookd and the page both have `name` on the glass; a refusal on the page fails at once."""
        if page.error():
            raise Failure(f"waiting for {name} on the glass, the page shows the error {page.error()!r}")
        return on_glass_in_nookd() == name and on_glass_on_page() == name

    def count_text():
        return page.js("return document.getElementById('apps-count').textContent")

    def use_token(token):
        page.tab_to("token")
        browser.keys(token)
        page.press("token-save")
        until("the page using the token", lambda: page.js("return sessionStorage.getItem('nook-http-token')") == token)

    try:
        browser.open(arguments.url + "/")
        ok(f"{browser.name} {browser.version} loaded the page")
        use_token(arguments.read_token)
        until("the page saying there are no apps", lambda: count_text() == "No apps.")
        ok("with a read token, the page says there are no apps")

        # Apps come: the page lists them in the rotation's order, with their text, without a
        # reload. Each stays an hour on the glass: only a press or a switch moves the rotation.
        nookd.call("app-set", app={"name": "weather", "text": "21 °C", "pos": 1, "duration": 3600})
        nookd.call("app-set", app={"name": "bus", "text": [{"text": "Bus 12 ", "tint": "#FF0000"}, {"text": "in 4 min"}],
                                   "pos": 2, "duration": 3600})
        nookd.call("app-set", app={"name": "power", "text": "1.2 kW", "pos": 3, "duration": 3600, "lifetime": 0.5, "lifetimeMode": "stale"})
        until("the three apps on the page in position order",
              lambda: [(name, text) for name, text, _, _ in shown()] == [("weather", "21 °C"), ("bus", "Bus 12 in 4 min"), ("power", "1.2 kW")])
        ok("the page lists the apps as they came: " + repr([(name, text) for name, text, _, _ in shown()]))

        # A stale app is marked stale, as nookd has it.
        until("nookd calling power stale", lambda: any(state["app"]["name"] == "power" and state.get("stale")
                                                        for state in nookd.call("app-list")["apps"]))
        until("power marked stale on the page", lambda: any(name == "power" and "stale" in classes and "stale, set" in meta
                                                            for name, _, meta, classes in shown()))
        ok("the stale app is marked stale: " + repr([meta for name, _, meta, _ in shown() if name == "power"]))

        # The rotation turned (here by a switch over the socket): the page follows it unasked.
        nookd.call("app-switch", name="weather")
        until("weather on the glass in nookd", lambda: on_glass_in_nookd() == "weather")
        until("weather on the glass on the page", lambda: on_glass_on_page() == "weather")
        until("the count naming it", lambda: count_text() == "3 apps, “weather” on the glass.")
        ok("the page follows the rotation: " + count_text())

        # A read token cannot turn the rotation: the page says why.
        page.press("app-next")
        message = until("the refusal of Next app on the page", page.error)
        if "403" not in message:
            raise Failure(f"Next app with a read token showed {message!r}, not a 403")
        ok("Next app with a read token is refused: " + message)

        # With a publish token, Next and Previous turn the rotation; the page follows nookd.
        use_token(arguments.publish_token)
        page.press("app-next")
        until("bus on the glass after Next app", lambda: glass("bus"))
        until("the count naming bus", lambda: count_text() == "3 apps, “bus” on the glass.")
        ok("Next app (Enter) put bus on the glass, and the page says so: " + count_text())
        page.press("app-next", Keys.SPACE)
        until("power on the glass after Next app", lambda: glass("power"))
        ok("Next app (Space) moved on to power")
        page.press("app-previous")
        until("bus on the glass again", lambda: glass("bus"))
        ok("Previous app went back to bus")

        # The rotation turning by itself: a one-second app, first in the order, switched to,
        # gives its turn to weather, and the page shows weather without anyone pressing.
        nookd.call("app-set", app={"name": "brief", "text": "One second", "pos": 0, "duration": 1})
        nookd.call("app-switch", name="brief")
        until("weather on the glass after brief's second, in nookd and on the page",
              lambda: glass("weather"), bound=BOUND * 2)
        ok("the rotation turned from brief to weather on its own, and the page followed")
        nookd.call("app-rm", name="brief")

        # Apps go: the page drops them.
        nookd.call("app-rm", name="bus")
        until("bus gone from the page", lambda: [name for name, _, _, _ in shown()] == ["weather", "power"])
        ok("an app removed is gone from the page")
        if page.js("return document.documentElement.scrollWidth > window.innerWidth + 1"):
            raise Failure("the page is wider than the window with apps")
        page.js("document.getElementById('apps-heading').scrollIntoView()")
        shot = os.path.join(arguments.artifacts, f"page-{arguments.browser}-apps.png")
        if not browser.screenshot(shot):
            raise Failure("no screenshot")
        ok("screenshot " + shot)
    finally:
        browser.quit()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--browser", choices=["chromium", "firefox"], default="chromium")
    parser.add_argument("--url", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--part", choices=["all", "apps"], default="all")
    parser.add_argument("--read-token")
    parser.add_argument("--publish-token")
    arguments = parser.parse_args()
    os.makedirs(arguments.artifacts, exist_ok=True)
    try:
        if arguments.part == "apps":
            run_apps(arguments)
        else:
            run(arguments)
    except (Failure, WebDriverException) as failure:
        print("FAIL: " + str(failure).strip(), flush=True)
        sys.exit(1)
    print("page_in_browser: all passed", flush=True)


if __name__ == "__main__":
    main()
