#!/usr/bin/env python3
"""The page (V2) in a real browser: headless Chromium driven by Selenium against nook-http and
a real nookd. Every outcome is checked through nookd's own answers on its socket, and every
wait is for something observed (a generation, a list entry), bounded only so that a hang fails.

Usage: page_in_browser.py --url http://127.0.0.1:PORT --socket NOOKD.sock --artifacts DIR
Prints one `ok: ...` line per check; exits 1 with `FAIL: ...` on the first that fails.
"""
import argparse
import json
import os
import socket
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

BOUND = float(os.environ.get("NOOK_PAGE_TEST_BOUND", "20"))


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


def start_chromium():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,1600", "--lang=en-GB", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking"]:
        options.add_argument(argument)
    # Debian's chromedriver: Selenium Manager would otherwise try to download one.
    return webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))


class Page:
    def __init__(self, driver):
        self.driver = driver

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def frame(self):
        return int(self.js("return document.getElementById('glass').dataset.frame") or 0)

    def active(self):
        """What has the keyboard focus: its id, or its data-activity for a Dismiss button."""
        return self.js("const e = document.activeElement; return e ? (e.id || (e.dataset.activity ? 'dismiss:' + e.dataset.activity : e.tagName)) : null")

    def tab_to(self, target, bound=80):
        """Presses Tab (only) until `target` (an id or 'dismiss:ID') has the focus."""
        for _ in range(bound):
            if self.active() == target:
                return
            ActionChains(self.driver).send_keys(Keys.TAB).perform()
        raise Failure(f"Tab never reached {target}; focus ended on {self.active()}")

    def press(self, target, key=Keys.ENTER):
        self.tab_to(target)
        ActionChains(self.driver).send_keys(key).perform()

    def error(self):
        return self.js("const e = document.getElementById('error'); return e.hidden ? '' : e.textContent")

    def pending_titles(self):
        # Read in one script: the list is replaced as it refreshes.
        return self.js("return [...document.querySelectorAll('#pending li .what')].map((e) => e.textContent)")

    def history_texts(self):
        return self.js("return [...document.querySelectorAll('#history li')].map((e) => e.textContent)")


def run(arguments):
    nookd = Nookd(arguments.socket)
    driver = start_chromium()
    page = Page(driver)
    try:
        driver.get(arguments.url + "/")
        ok("Chromium " + driver.capabilities.get("browserVersion", "?") + " loaded the page")

        # The live glass: the first frame arrives, then an enqueue reaches the page as a newer
        # generation, and the page follows the glass to the generation it settles on.
        first = until("the first frame on the page", page.frame)
        natural = page.js("return document.getElementById('glass').naturalWidth")
        if not natural:
            raise Failure("the glass image did not decode")
        alpha = nookd.call("enqueue", activity={"title": "Alpha probe", "dwell": 60})["id"]
        until("a newer frame on the page after the enqueue", lambda: page.frame() > first)
        ok(f"the glass went from frame {first} to {page.frame()} after an enqueue")

        def settled():
            glass = screen_generation(arguments.url)
            return page.frame() == glass and glass
        reached = until("the page at the glass's own generation", settled)
        ok(f"the page shows the glass's generation {reached}")

        until("Alpha probe in the page's waiting list", lambda: any("Alpha probe" in t for t in page.pending_titles()))
        ok("the waiting list shows what nookd shows")

        # Keyboard only: Tab reaches every control, in the document's order. The focus each Tab
        # lands on is logged in the page, so the whole walk is one round trip to the browser.
        page.js("document.activeElement.blur(); window.scrollTo(0, 0); window.focusLog = [];"
                "document.addEventListener('focusin', (e) => window.focusLog.push(e.target.id ||"
                " (e.target.dataset.activity ? 'dismiss:' + e.target.dataset.activity : e.target.tagName)))")
        walk = ActionChains(driver)
        for _ in range(40):
            walk.send_keys(Keys.TAB)
        walk.perform()
        seen = []
        for current in page.js("return window.focusLog"):
            if current not in seen:
                seen.append(current)
        for control in ["suspend", "resume", "quiet-on", "quiet-off", "quiet-until", "quiet-until-set", "test-title",
                        "test-send", "dismiss:" + alpha, "history-q", "history-search", "token", "token-save", "token-forget"]:
            if control not in seen:
                raise Failure(f"Tab never reaches {control}; the order was {seen}")
        for control in ["suspend", "history-q"]:
            page.tab_to(control)
            outline = page.js("const s = getComputedStyle(document.activeElement); return [s.outlineStyle, parseFloat(s.outlineWidth)]")
            if outline[0] in ("none", "") or outline[1] < 2:
                raise Failure(f"{control}, focused from the keyboard, shows no clear outline: {outline}")
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
        ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).send_keys("Keyboard card").perform()
        page.press("test-send")
        until("the test card in nookd's queue", lambda: "Keyboard card" in nookd.titles())
        ok("Send test card enqueued 'Keyboard card'")
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
        ok("Dismiss (Space) ended the test card")

        # History with search: all of it, then only what matches.
        page.press("history-search")
        until("both cards in the page's history",
              lambda: any("Alpha probe" in t for t in page.history_texts()) and any("Keyboard card" in t for t in page.history_texts()))
        page.tab_to("history-q")
        ActionChains(driver).send_keys("Keyboard", Keys.ENTER).perform()

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
        driver.set_window_size(390, 844)
        if page.js("return document.documentElement.scrollWidth > window.innerWidth + 1"):
            raise Failure("the page is wider than a phone's window")
        ok("the page fits a phone's width (390 px) without scrolling sideways")
        driver.set_window_size(1280, 1600)
        page.js("window.scrollTo(0, 0)")
        shot = os.path.join(arguments.artifacts, "page-chromium.png")
        if not driver.save_screenshot(shot):
            raise Failure("no screenshot")
        ok("screenshot " + shot)
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--artifacts", required=True)
    arguments = parser.parse_args()
    os.makedirs(arguments.artifacts, exist_ok=True)
    try:
        run(arguments)
    except (Failure, WebDriverException) as failure:
        print("FAIL: " + str(failure).strip(), flush=True)
        sys.exit(1)
    print("page_in_browser: all passed", flush=True)


if __name__ == "__main__":
    main()
