#!/usr/bin/python3
"""The power-cut suite's client and checker (SPEC J1, J2; issues 14, 25).

Runs inside the guest. It talks nookd's socket protocol directly so that a pipelined burst is
one connection, and records, in files on the results share (the host's disk, not the guest's),
what nookd acknowledged before the host cut the power:

  powercut-client.py lockstep SOCKET NAME COUNT DIR [PAUSE]
                                                      one request per connection, in turn
  powercut-client.py burst SOCKET NAME COUNT DIR [--stop-after N] [--keys K] [--subtitle B]
                                                      COUNT pipelined on one connection
  powercut-client.py cancel SOCKET DIR NAME FIRST COUNT   cancels acknowledged ids, in turn
  powercut-client.py verify DIR NAME LOG [--lost-within S --cut-at T] [--keys K]
                                                      after the next boot: PASS/FAIL lines

Each NAME.acked line is `ID SECONDS NUMBER` (CLOCK_MONOTONIC at the answer, the request's
number); NAME.ended lists ids nookd confirmed had ended (a cancel's answer, a `--wait` that saw
the end). With --keys, request N has key N % K: for each key the newest acknowledged activity,
or a newer one still in flight at the cut, must come back, and none older.
"""
import json
import os
import re
import socket
import sys
import threading
import time
import uuid


def connect(path):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(path)
    return client


def enqueue_line(number, activity_id, title, key=None, subtitle=None):
    activity = {"id": activity_id, "title": title, "dwell": 600}
    if key is not None:
        activity["key"] = key
    if subtitle:
        activity["subtitle"] = subtitle
    return json.dumps({"v": 1, "id": number, "op": "enqueue", "activity": activity}, separators=(",", ":")) + "\n"


def lines(client):
    buffer = b""
    while True:
        chunk = client.recv(65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)


class Record:
    """Appends to DIR/NAME.acked and DIR/NAME.ended, each line on the host's disk at once
    (the results share is 9p without a cache: a write returns once the host has it)."""

    def __init__(self, directory, name):
        self.acked = open(os.path.join(directory, name + ".acked"), "a", buffering=1)
        self.ended = open(os.path.join(directory, name + ".ended"), "a", buffering=1)

    def ack(self, ids):
        """ids: (id, request number) pairs."""
        now = time.clock_gettime(time.CLOCK_MONOTONIC)
        self.acked.write("".join("%s %.3f %d\n" % (i, now, n) for i, n in ids))

    def end(self, ids):
        if ids:
            self.ended.write("".join(i + "\n" for i in ids))


def request(path, line):
    client = connect(path)
    client.sendall(line.encode())
    answer = next(lines(client))
    client.close()
    return answer


def lockstep(path, name, count, directory, pause=0.0):
    record = Record(directory, name)
    for number in range(count):
        time.sleep(pause)
        activity_id = str(uuid.uuid4())
        answer = request(path, enqueue_line(number, activity_id, "%s #%d" % (name, number)))
        if not answer.get("ok"):
            sys.exit("enqueue refused: %s" % answer)
        record.ack([(activity_id, number)])


def cancel(path, directory, name, first, count):
    record = Record(directory, name)
    ids = [line.split()[0] for line in open(os.path.join(directory, name + ".acked"))][first:first + count]
    for number, activity_id in enumerate(ids):
        line = json.dumps({"v": 1, "id": number, "op": "cancel", "activity": activity_id}) + "\n"
        answer = request(path, line)
        if not answer.get("ok"):
            sys.exit("cancel refused: %s" % answer)
        record.end([activity_id])
        # The cancel's answer is an acknowledgement too: its time is the instance's last ack.
        record.acked.write("cancel %.3f 0\n" % time.clock_gettime(time.CLOCK_MONOTONIC))


def burst(path, name, count, directory, stop_after=None, keys=0, subtitle=0):
    record = Record(directory, name)
    ids = [str(uuid.uuid4()) for _ in range(count)]
    text = "x" * subtitle
    payload = "".join(enqueue_line(n, ids[n], "%s #%d" % (name, n), key=("k%d" % (n % keys)) if keys else None,
                                   subtitle=text) for n in range(count)).encode()
    client = connect(path)
    threading.Thread(target=lambda: client.sendall(payload), daemon=True).start()
    acked = []
    answered = 0
    for answer in lines(client):
        if "id" not in answer or "event" in answer:
            continue
        if not answer.get("ok"):
            sys.exit("enqueue refused: %s" % answer)
        number = int(answer["id"])
        acked.append((ids[number], number))
        answered += 1
        if len(acked) >= 100 or answered == stop_after or answered == count:
            record.ack(acked)
            acked = []
        if answered == stop_after or answered == count:
            break
    # Leave the connection open: with --stop-after the rest of the burst is still in flight.
    return client


def verify(directory, name, log, lost_within=None, cut_at=None, keys=0):
    acked = {}
    for line in open(os.path.join(directory, name + ".acked")):
        what, at, number = line.split()
        if what != "cancel":
            acked[what] = (float(at), int(number))
    ended_path = os.path.join(directory, name + ".ended")
    ended = set(line.strip() for line in open(ended_path)) if os.path.exists(ended_path) else set()
    text = open(log).read()
    restored = dict(re.findall(r'journal: restored ([0-9a-f-]{36}) "%s #(\d+)"' % re.escape(name), text))
    if keys:
        # Per key, the newest acknowledged request; a newer one nookd took before the cut (its
        # answer unread) may stand in for it. Anything older had been replaced: it ended.
        newest = {}
        for _, number in acked.values():
            newest[number % keys] = max(newest.get(number % keys, -1), number)
        back_numbers = [int(n) for n in restored.values()]
        lost = [k for k, n in newest.items() if not any(m % keys == k and m >= n for m in back_numbers)]
        back = [m for m in back_numbers if m < newest.get(m % keys, -1)]
        if lost or back:
            print("FAIL J1 %s: %d of %d keys lost their newest acknowledged activity, %d replaced ones came back"
                  % (name, len(lost), len(newest), len(back)))
        else:
            print("PASS J1 %s: every key's newest acknowledged activity back (%d keys, %d requests acknowledged), none it replaced"
                  % (name, len(newest), len(acked)))
    else:
        must = set(acked) - ended
        lost = must - set(restored)
        back = ended & set(restored)
        if lost_within is None:
            if lost:
                print("FAIL J1 %s: %d of %d acknowledged activities lost after the power cut" % (name, len(lost), len(must)))
            if back:
                print("FAIL J1 %s: %d activities that had ended came back" % (name, len(back)))
            if not lost and not back:
                print("PASS J1 %s: all %d acknowledged activities back, none of the %d ended ones" % (name, len(must), len(ended)))
        else:
            early = [i for i in lost if acked[i][0] < cut_at - lost_within]
            if early:
                print("FAIL J2 %s: %d of %d activities acknowledged more than %.1f s before the cut were lost"
                      % (name, len(early), len(must), lost_within))
            else:
                oldest = max((cut_at - acked[i][0] for i in lost), default=None)
                print("PASS J2 %s: lost %d of %d, all acknowledged in the last %.1f s before the cut%s"
                      % (name, len(lost), len(must), lost_within, "" if oldest is None else " (oldest lost %.2f s before)" % oldest))
    for warning in re.findall(r"warning nookd: .*?(journal .*)", text):
        print("note %s: %s" % (name, warning))


def main(argv):
    command = argv[1]
    if command == "lockstep":
        lockstep(argv[2], argv[3], int(argv[4]), argv[5], float(argv[6]) if len(argv) > 6 else 0.0)
    elif command == "cancel":
        cancel(argv[2], argv[3], argv[4], int(argv[5]), int(argv[6]))
    elif command == "burst":
        options = dict(zip(argv[6::2], argv[7::2]))
        client = burst(argv[2], argv[3], int(argv[4]), argv[5], stop_after=int(options.get("--stop-after", 0)) or None,
                       keys=int(options.get("--keys", 0)), subtitle=int(options.get("--subtitle", 0)))
        if "--stop-after" in options:
            # Tell the script, then hold the connection (the rest of the burst still in
            # flight) until the power goes.
            open(os.path.join(argv[5], argv[3] + ".stopped"), "w").close()
            time.sleep(3600)
        client.close()
    elif command == "verify":
        options = dict(zip(argv[5::2], argv[6::2]))
        lost_within = float(options["--lost-within"]) if "--lost-within" in options else None
        cut_at = float(options["--cut-at"]) if "--cut-at" in options else None
        verify(argv[2], argv[3], argv[4], lost_within, cut_at, int(options.get("--keys", 0)))
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main(sys.argv)
