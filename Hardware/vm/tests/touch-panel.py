#!/usr/bin/env python3
"""A touchscreen made through uinput (Python's standard library only) with the kernel's evdev
between it and nookd (SPEC T1-T3): fingers as a multitouch protocol B panel sends them, each
check judged by nookd's answers and events on its socket. Prints PASS/FAIL lines, and with
--figures the `touch_to_engaged_ms` and `swipe_to_dismissed_ms` rounds as `name: value` lines.

    touch-panel.py SOCKET PANEL_WxH ROTATION LOG [--figures]

PANEL is the glass as the kernel's display has it (the touch controller's axes run along it);
ROTATION is display.rotation: a point of the picture is turned clockwise onto the glass."""
import fcntl, json, os, select, socket, struct, sys, time

UI_DEV_CREATE, UI_DEV_DESTROY = 0x5501, 0x5502
UI_SET_EVBIT, UI_SET_KEYBIT, UI_SET_ABSBIT, UI_SET_PROPBIT = 0x40045564, 0x40045565, 0x40045567, 0x4004556E
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
BTN_TOUCH, BTN_TOOL_FINGER = 0x14A, 0x145
ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x00, 0x01, 0x2F, 0x35, 0x36, 0x39
INPUT_PROP_DIRECT = 1
RAW_MAX = 4095
NAME = b"Nook VM Touch"

socket_path, panel, rotation, log_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
figures = "--figures" in sys.argv
panel_w, panel_h = (int(n) for n in panel.split("x"))
# The picture nookd draws: the glass turned back.
pic_w, pic_h = (panel_w, panel_h) if rotation in (0, 180) else (panel_h, panel_w)
failed = False


def report(ok, name, detail=""):
    global failed
    print(("PASS " if ok else "FAIL ") + name + ((": " + detail) if detail and not ok else (" (" + detail + ")" if detail else "")), flush=True)
    failed |= not ok


class Panel:
    """One uinput touchscreen; destroy() is the unplug, a new Panel the replug."""

    def __init__(self):
        self.fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        for bit in (EV_SYN, EV_KEY, EV_ABS):
            fcntl.ioctl(self.fd, UI_SET_EVBIT, bit)
        for key in (BTN_TOUCH, BTN_TOOL_FINGER):
            fcntl.ioctl(self.fd, UI_SET_KEYBIT, key)
        axes = (ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID)
        for axis in axes:
            fcntl.ioctl(self.fd, UI_SET_ABSBIT, axis)
        fcntl.ioctl(self.fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT)
        absmax, absmin = [0] * 64, [0] * 64
        for axis in (ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y):
            absmax[axis] = RAW_MAX
        absmax[ABS_MT_SLOT], absmax[ABS_MT_TRACKING_ID] = 9, 65535
        # struct uinput_user_dev: name[80], input_id (bustype, vendor, product, version), ff_effects_max, abs max/min/fuzz/flat.
        device = struct.pack("80sHHHHi", NAME, 0x18, 0x416, 0x38F, 1, 0) + struct.pack("64i", *absmax) + struct.pack("64i", *absmin) + bytes(64 * 4 * 2)
        os.write(self.fd, device)
        fcntl.ioctl(self.fd, UI_DEV_CREATE)
        self.tracking = 0

    def send(self, *events):
        now = time.time()
        sec, usec = int(now), int((now % 1) * 1e6)
        os.write(self.fd, b"".join(struct.pack("llHHi", sec, usec, t, c, v) for t, c, v in events + ((EV_SYN, 0, 0),)))

    @staticmethod
    def raw(x, y):
        """A point of the picture as the controller reports it: turned clockwise onto the glass."""
        turns = {0: lambda: (x, y), 90: lambda: (pic_h - 1 - y, x), 180: lambda: (pic_w - 1 - x, pic_h - 1 - y), 270: lambda: (y, pic_w - 1 - x)}
        gx, gy = turns[rotation]()
        return round(gx * RAW_MAX / (panel_w - 1)), round(gy * RAW_MAX / (panel_h - 1))

    def down(self, x, y):
        self.tracking += 1
        rx, ry = self.raw(x, y)
        self.send((EV_ABS, ABS_MT_SLOT, 0), (EV_ABS, ABS_MT_TRACKING_ID, self.tracking), (EV_ABS, ABS_MT_POSITION_X, rx),
                  (EV_ABS, ABS_MT_POSITION_Y, ry), (EV_KEY, BTN_TOUCH, 1), (EV_KEY, BTN_TOOL_FINGER, 1), (EV_ABS, ABS_X, rx), (EV_ABS, ABS_Y, ry))

    def move(self, x, y):
        rx, ry = self.raw(x, y)
        self.send((EV_ABS, ABS_MT_POSITION_X, rx), (EV_ABS, ABS_MT_POSITION_Y, ry), (EV_ABS, ABS_X, rx), (EV_ABS, ABS_Y, ry))

    def up(self):
        self.send((EV_ABS, ABS_MT_TRACKING_ID, -1), (EV_KEY, BTN_TOUCH, 0), (EV_KEY, BTN_TOOL_FINGER, 0))

    def destroy(self):
        fcntl.ioctl(self.fd, UI_DEV_DESTROY)
        os.close(self.fd)


class Nookd:
    """nookd's socket: requests on one connection, a `watch` stream on another."""

    def __init__(self):
        self.requests, self.events = self.connect(), self.connect()
        self.buffers = {self.requests: b"", self.events: b""}
        self.next_id = 100
        self.events.sendall(b'{"id":1,"op":"watch"}\n')
        self.seen = []
        self.wait_event(lambda line: line.get("result") is not None, 10)

    @staticmethod
    def connect():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(socket_path)
        return s

    def line(self, conn, deadline):
        while b"\n" not in self.buffers[conn]:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([conn], [], [], left)[0]:
                return None
            chunk = conn.recv(65536)
            if not chunk:
                return None
            self.buffers[conn] += chunk
        text, _, self.buffers[conn] = self.buffers[conn].partition(b"\n")
        return json.loads(text)

    def request(self, op, **fields):
        self.next_id += 1
        self.requests.sendall(json.dumps({"id": self.next_id, "op": op, **fields}).encode() + b"\n")
        deadline = time.monotonic() + 20
        while True:
            answer = self.line(self.requests, deadline)
            if answer is None:
                raise RuntimeError(f"no answer to {op}")
            if answer.get("id") == self.next_id and "event" not in answer:
                if not answer.get("ok"):
                    raise RuntimeError(f"{op}: {answer.get('error')}")
                return answer["result"]

    def wait_event(self, matches, seconds=15):
        """The first line of the watch stream (after those already seen) that `matches`, with when it was read."""
        deadline = time.monotonic() + seconds
        while True:
            line = self.line(self.events, deadline)
            if line is None:
                return None, None
            at = time.monotonic()
            self.seen.append(line)
            if matches(line):
                return line, at

    def status(self):
        return self.request("status")


def event_of(activity, kind, reason=None):
    def matches(line):
        event = line.get("event") or {}
        return event.get("id") == activity and event.get("event") == kind and (reason is None or event.get("reason") == reason)
    return matches


def engaged_change(line):
    return (line.get("event") or {}).get("changed") == "engaged"


def until(what, condition, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    return None


def log_count(text):
    with open(log_path, errors="replace") as log:
        return log.read().count(text)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def enqueue(nookd, **activity):
    return nookd.request("enqueue", activity=activity)["id"]


def on_glass(nookd, activity):
    line, _ = nookd.wait_event(event_of(activity, "presented"))
    return line is not None


def swipe(panel, dx_fraction, steps=6, pause=0.012):
    x0, y = pic_w * 0.5, pic_h * 0.5
    panel.down(x0, y)
    for step in range(1, steps + 1):
        time.sleep(pause)
        panel.move(x0 + pic_w * dx_fraction * step / steps, y)
    lifted = time.monotonic()
    panel.up()
    return lifted


def tap(panel, x=None, y=None):
    panel.down(pic_w * 0.5 if x is None else x, pic_h * 0.5 if y is None else y)
    time.sleep(0.05)
    panel.up()


def main():
    os.system("modprobe uinput 2>/dev/null; modprobe evdev 2>/dev/null")
    panel = Panel()
    nookd = Nookd()
    found = until("the touchscreen in status", lambda: (nookd.status().get("touch") or {}).get("device"))
    report(bool(found), f"T1 nookd finds the uinput touchscreen by its capabilities ({rotation}°)", str(found))
    if not found:
        print("touch status:", json.dumps(nookd.status().get("touch")))
        return

    # Finger down holds the queue (Q6); lifting it lets the waiting card take the glass.
    panel.down(pic_w / 2, pic_h / 2)
    line, _ = nookd.wait_event(engaged_change)
    waiting = enqueue(nookd, title="Waits for the finger", dwell=30)
    parked = until("parked", lambda: "yielding" in (nookd.status()["modules"][0].get("parked") or ""))
    shown_early = any(event_of(waiting, "animateIn")(l) for l in nookd.seen)
    panel.up()
    shown, _ = nookd.wait_event(event_of(waiting, "animateIn"))
    report(line is not None and bool(parked) and not shown_early and shown is not None,
           f"T2 Q6 a finger on the glass holds the queue and lifting it lets the card in ({rotation}°)",
           f"engaged {line is not None}, parked {bool(parked)}, shown while down {shown_early}, shown after {shown is not None}")
    nookd.request("dismiss")
    nookd.wait_event(event_of(waiting, "hidden"))

    # A tap invokes the card's default action (E3).
    card = enqueue(nookd, title="Tap me", action=True, dwell=30)
    on_glass(nookd, card)
    tap(panel)
    invoked, _ = nookd.wait_event(event_of(card, "invoked"))
    # The tap is decided at the lift, just before the up that ends it: the up may come a moment later.
    status = until("the up after the tap", lambda: (lambda s: s if s["touch"]["lastGesture"] == "up" and not s["engaged"] else None)(nookd.status()), 5) \
        or nookd.status()
    report(invoked is not None and status["touch"]["lastGesture"] == "up" and not status["engaged"],
           f"T2 E3 a tap invokes the card's action, and the queue is free after it ({rotation}°)",
           f"invoked {invoked is not None}, touch {status['touch']}, engaged {status['engaged']}")
    nookd.request("dismiss")
    nookd.wait_event(event_of(card, "hidden"))

    # A sideways swipe (in the picture: along the glass's other axis when turned) dismisses.
    lifted_times = []
    rounds = 10 if figures else 1
    dismissed_all = True
    for _ in range(rounds):
        card = enqueue(nookd, title="Swipe me away", blocker=True)
        on_glass(nookd, card)
        lifted = swipe(panel, 0.3 if len(lifted_times) % 2 == 0 else -0.3)
        out, at = nookd.wait_event(event_of(card, "animateOut"))
        hidden, _ = nookd.wait_event(event_of(card, "hidden", "dismissed"))
        dismissed_all &= out is not None and hidden is not None
        if at is not None:
            lifted_times.append((at - lifted) * 1000)
    report(dismissed_all, f"T2 a sideways swipe dismisses the card on the glass, a blocker too ({rotation}°)")

    # A long press on an idle display recalls the history's newest entries (U5).
    recalls, done = log_count("recall: long press on an idle display"), log_count("recall: done")
    panel.down(pic_w / 2, pic_h / 2)
    recalled = until("the long press", lambda: nookd.status()["touch"]["lastGesture"] == "long-press", 10)
    panel.up()
    recall_logged = until("the recall in nookd's log", lambda: log_count("recall: long press on an idle display") > recalls, 10)
    report(bool(recalled) and bool(recall_logged), f"T2 U5 a long press on an idle display recalls ({rotation}°)",
           f"gesture {bool(recalled)}, recall {bool(recall_logged)}")
    until("the recall done", lambda: log_count("recall: done") > done, 20)

    # Unplugged mid-gesture: the queue is let go; plugged back in: found again and working.
    panel.down(pic_w / 2, pic_h / 2)
    nookd.wait_event(engaged_change)
    panel.destroy()
    released = until("released", lambda: not nookd.status()["engaged"], 10)
    gone = until("the device gone", lambda: nookd.status()["touch"]["device"] is None, 10)
    panel = Panel()
    back = until("the device back", lambda: nookd.status()["touch"]["device"], 20)
    card = enqueue(nookd, title="After the replug", action=True, dwell=30)
    on_glass(nookd, card)
    tap(panel)
    invoked, _ = nookd.wait_event(event_of(card, "invoked"))
    report(bool(released) and bool(gone) and bool(back) and invoked is not None,
           f"T1 unplugged mid-gesture the queue is let go; plugged back the panel is found and a tap acts ({rotation}°)",
           f"released {bool(released)}, gone {bool(gone)}, back {back}, invoked {invoked is not None}")
    nookd.request("dismiss")

    if figures:
        engaged_times = []
        for _ in range(30):
            start = time.monotonic()
            panel.down(pic_w / 3, pic_h / 3)
            line, at = nookd.wait_event(engaged_change, 5)
            if at is not None:
                engaged_times.append((at - start) * 1000)
            panel.up()
            nookd.wait_event(engaged_change, 5)
        for name, values in (("touch_to_engaged_ms", engaged_times), ("swipe_to_dismissed_ms", lifted_times)):
            if values:
                print(f"{name}_p99: {percentile(values, 99):.2f}")
                print(f"{name}_p50: {percentile(values, 50):.2f}")
                print(f"{name}_range: {min(values):.2f} {max(values):.2f} ({len(values)} rounds)")
    panel.destroy()


try:
    main()
except Exception as error:  # a broken step is a failure with its reason, never a silent pass
    report(False, f"the touch run at {rotation}° stopped", repr(error))
sys.exit(1 if failed else 0)
