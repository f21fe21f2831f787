#!/usr/bin/env python3
"""Sound on a real kernel (SPEC B1, B3, B5), Python's standard library only:

    sound-check.py beeper NODE-FILE EVENTS-FILE   a beeper made through uinput (EV_SND, SND_TONE): its
                                                  event node written to NODE-FILE, then every EV_SND
                                                  event nookd writes recorded to EVENTS-FILE with the
                                                  kernel's CLOCK_MONOTONIC stamp, until SIGTERM
    sound-check.py tones EVENTS-FILE FROM NOTES     judges the events from line FROM (counting from 0)
    sound-check.py pcm RAW NOTES                    judges S16_LE mono 48 kHz samples captured from snd-aloop
    sound-check.py silent RAW                       every sample captured is 0, and there are some

NOTES is the melody as it should sound, written out apart from the RTTTL nookd is sent (so its
parser is judged, not repeated): `c6/250 e6/250 p/250 a#5/125`, each note or pause `p` with its
length in milliseconds. Pitches are equal-tempered from A4 = 440 Hz. Prints PASS/FAIL lines."""
import fcntl, os, signal, struct, sys, time

EV_SND, SND_TONE = 0x12, 0x02
UI_SET_EVBIT, UI_SET_SNDBIT, UI_DEV_CREATE = 0x40045564, 0x4004556A, 0x5501
# _IOW('U', 3, struct uinput_setup): input_id (4 x u16), name[80], ff_effects_max (u32): 92 bytes.
UI_DEV_SETUP = 0x40000000 | (92 << 16) | (ord("U") << 8) | 3
RATE = 48_000
# The event carries whole hertz: nookd rounds. A semitone at these pitches is 52 Hz or more, so
# 1 Hz either side can only be rounding, never a wrong note.
TONE_HZ = 1.0
# A tone's length is measured between the kernel's stamps of two events. nookd waits each tone
# out from its write, so a tone is never short (2 ms for the stamps' own granularity); a thread of
# nookd's woken late under TCG (one emulated CPU shared with everything) only makes it longer, by
# as much as the host's load takes (a CI run saw 155 ms). So one late wake-up is load, not a
# fault: what a wrong tempo or a doubled wait would do, most tones more than 150 ms long, fails.
TONE_SHORT_MS, TONE_LONG_MS = 2, 150
# A captured note's pitch: zero crossings over its middle, to 0.5 % (a semitone is 5.9 %, a
# 44.1 kHz stream played as 48 kHz 8.8 %).
PCM_PITCH = 0.005
# A captured note's length in samples: the samples are exact, but each note fades in and out
# over 5 ms (below the threshold a millisecond or so goes uncounted), and an underrun of the
# emulated guest (which nookd recovers from) would lengthen a note with silence.
PCM_LENGTH_MS = 25

failed = False


def report(ok, text):
    global failed
    print(("PASS " if ok else "FAIL ") + text, flush=True)
    failed |= not ok


def notes(spec):
    """[(hertz or 0 for a pause, milliseconds)] from `c6/250 p/250 a#5/125`."""
    semitones = {"c": -9, "d": -7, "e": -5, "f": -4, "g": -2, "a": 0, "b": 2}
    out = []
    for word in spec.split():
        name, ms = word.split("/")
        if name == "p":
            out.append((0.0, int(ms)))
            continue
        step = semitones[name[0]] + (1 if "#" in name else 0) + 12 * (int(name[-1]) - 4)
        out.append((440.0 * 2 ** (step / 12), int(ms)))
    return out


def beeper(node_file, events_file):
    fd = os.open("/dev/uinput", os.O_RDWR)
    fcntl.ioctl(fd, UI_SET_EVBIT, EV_SND)
    fcntl.ioctl(fd, UI_SET_SNDBIT, SND_TONE)
    fcntl.ioctl(fd, UI_DEV_SETUP, struct.pack("HHHH80sI", 0x06, 0x1F, 0xB5, 1, b"Nook VM Beeper", 0))
    fcntl.ioctl(fd, UI_DEV_CREATE)
    # UI_GET_SYSNAME(64): the input device's name in sysfs (input7), whose eventN is the node.
    sysname = fcntl.ioctl(fd, 0x80000000 | (64 << 16) | (ord("U") << 8) | 44, bytes(64)).split(b"\0")[0].decode()
    folder = "/sys/class/input/" + sysname
    event = None
    for _ in range(100):
        event = next((name for name in os.listdir(folder) if name.startswith("event")), None)
        if event and os.path.exists("/dev/input/" + event):
            break
        time.sleep(0.05)
    with open(node_file + ".part", "w") as out:
        out.write("/dev/input/%s\n" % event)
    os.rename(node_file + ".part", node_file)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(events_file, "a") as out:
        while True:
            data = os.read(fd, 24 * 16)
            for offset in range(0, len(data) - 23, 24):
                sec, usec, kind, code, value = struct.unpack_from("llHHi", data, offset)
                if kind == EV_SND:
                    out.write("%d.%06d %d %d\n" % (sec, usec, code, value))
                    out.flush()


def tones(events_file, first, spec):
    expected = notes(spec)
    with open(events_file) as lines:
        events = [line.split() for line in lines][int(first):]
    got = [(float(stamp), int(code), int(value)) for stamp, code, value in events]
    wanted = [hz for hz, _ in expected] + [0]
    codes_ok = all(code == SND_TONE for _, code, _ in got)
    shape = "%d events %s" % (len(got), [value for _, _, value in got])
    if len(got) != len(wanted) or not codes_ok:
        report(False, "B1 B5 the uinput beeper receives the melody's %d tones and a final 0 as SND_TONE events: %s" % (len(wanted), shape))
        return
    pitches = [abs(value - hz) <= TONE_HZ if hz else value == 0 for (_, _, value), hz in zip(got, wanted)]
    report(all(pitches), "B1 B5 the uinput beeper receives exactly the melody's tones in order, each within %g Hz of "
           "equal temperament, rests and the end as 0: %s Hz for %s" % (TONE_HZ, [value for _, _, value in got],
                                                               [round(hz, 1) for hz in wanted]))
    lengths = [round((b[0] - a[0]) * 1000) for a, b in zip(got, got[1:])]
    short = [length < ms - TONE_SHORT_MS for length, (_, ms) in zip(lengths, expected)]
    long = [length > ms + TONE_LONG_MS for length, (_, ms) in zip(lengths, expected)]
    report(not any(short) and sum(long) * 3 <= len(long),
           "B5 each tone lasts its note's length (never %d ms short; under TCG at most a third of them more than %d ms "
           "long): %s ms for %s ms" % (TONE_SHORT_MS, TONE_LONG_MS, lengths, [ms for _, ms in expected]))


def samples(raw):
    with open(raw, "rb") as data:
        blob = data.read()
    return struct.unpack("<%dh" % (len(blob) // 2), blob[: len(blob) // 2 * 2])


def sounding(pcm, window=96):
    """Each note as the [first, end) sample ranges where 2 ms windows reach a tenth of the
    loudest sample: pieces less than 100 ms apart (an underrun's silence) are one note's, so only
    the melody's pauses part notes."""
    peak = max((abs(s) for s in pcm), default=0)
    notes = []
    for start in range(0, len(pcm) if peak else 0, window):
        lit = [i for i in range(start, min(start + window, len(pcm))) if abs(pcm[i]) * 10 >= peak]
        if not lit:
            continue
        if notes and lit[0] - notes[-1][-1][1] < RATE // 10:
            piece = notes[-1][-1]
            if lit[0] - piece[1] < window:
                piece[1] = lit[-1] + 1
            else:
                notes[-1].append([lit[0], lit[-1] + 1])
        else:
            notes.append([[lit[0], lit[-1] + 1]])
    return notes


def pitch(pcm, first, end):
    """Hertz from the rising zero crossings of the middle 80 % of a note, each placed between
    its two samples."""
    margin = (end - first) // 10
    crossings = [i - 1 + pcm[i - 1] / (pcm[i - 1] - pcm[i]) for i in range(first + margin + 1, end - margin)
                 if pcm[i - 1] < 0 <= pcm[i]]
    if len(crossings) < 2:
        return 0.0
    return (len(crossings) - 1) * RATE / (crossings[-1] - crossings[0])


def pcm_notes(raw, spec):
    pcm = samples(raw)
    expected = [(hz, ms) for hz, ms in notes(spec) if hz]
    found = sounding(pcm)
    spans = [(pieces[0][0], pieces[-1][1]) for pieces in found]
    if len(found) != len(expected):
        report(False, "B1 B5 snd-aloop captures the melody's %d notes: %d found in %.2f s of samples (%s)"
               % (len(expected), len(found), len(pcm) / RATE, [(round(a / RATE, 3), round(b / RATE, 3)) for a, b in spans]))
        return
    # The pitch over a note's longest unbroken piece: a phase jumps across an underrun's gap.
    heard = [round(pitch(pcm, *max(pieces, key=lambda p: p[1] - p[0])), 1) for pieces in found]
    report(all(abs(h - hz) <= hz * PCM_PITCH for h, (hz, _) in zip(heard, expected)),
           "B1 B5 snd-aloop: each note captured is the melody's pitch within %g %% (zero crossings): %s Hz for %s"
           % (PCM_PITCH * 100, heard, [round(hz, 1) for hz, _ in expected]))
    lengths = [round((b - a) * 1000 / RATE) for a, b in spans]
    gaps = sum(len(pieces) - 1 for pieces in found)
    report(all(abs(length - ms) <= PCM_LENGTH_MS for length, (_, ms) in zip(lengths, expected)),
           "B5 snd-aloop: each note captured lasts its length within %d ms (counted in samples): %s ms for %s ms%s"
           % (PCM_LENGTH_MS, lengths, [ms for _, ms in expected], "; %d gap(s) of an underrun inside" % gaps if gaps else ""))


def silent(raw):
    pcm = samples(raw)
    loudest = max((abs(s) for s in pcm), default=None)
    report(loudest == 0, "B3 B5 quiet hours: snd-aloop captured %.2f s of silence (loudest sample %s)"
           % (len(pcm) / RATE, loudest))


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    {"beeper": beeper, "tones": tones, "pcm": pcm_notes, "silent": silent}[command](*arguments)
    sys.exit(1 if failed else 0)
