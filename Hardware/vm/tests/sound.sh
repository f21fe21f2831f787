#!/bin/sh
# Sound on a real kernel (SPEC B1, B3, B5), nookd on the mock glass: a piezo beeper made through
# uinput (EV_SND, SND_TONE) that nookd finds by its capabilities, and ALSA's snd-aloop, whose
# capture side arecord reads back. Each gets an RTTTL melody, whose tones and samples
# sound-check.py judges against the notes written out below; then quiet hours, which must
# silence both. Last, the loopback card is unbound mid-melody: one log line, and nookd goes on.
. "$(dirname "$0")/lib.sh"
check=$repo/Hardware/vm/tests/sound-check.py
# status_within SECONDS PATTERN: nookctl status matched, bounded by the clock.
status_within() {
  deadline=$(( $(date +%s) + $1 ))
  while [ "$(date +%s)" -lt "$deadline" ]; do ctl status | grep -q -- "$2" && return 0; sleep 0.2; done
  return 1
}
# start_nookd NAME: nookd on the mock glass with /tmp/NAME.toml, its log in the results.
start_nookd() {
  log=$results/nookd-$1.log
  "$nookd" --config "/tmp/$1.toml" --display mock --size 1280x400 --socket "$socket" --journal none 2> "$log" &
  daemon=$!
  for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
}
# sound_counts: the status line's "N played, N failed", which moves when a play ends either way.
sound_counts() { ctl status | sed -n 's/^sound: .*, \([0-9]* played, [0-9]* failed\).*/\1/p'; }
stop_nookd() {
  kill -TERM "$daemon"
  wait "$daemon"
  code=$?
  if [ "$code" = 0 ]; then pass "N2 nookd with the $1 output stops cleanly"; else fail "nookd with the $1 output exited $code"; fi
  rm -f "$socket"
}

modprobe uinput 2> /dev/null
modprobe evdev 2> /dev/null
modprobe snd-aloop 2> /dev/null
[ -c /dev/uinput ] || { fail "B5 /dev/uinput exists in the guest (CONFIG_INPUT_UINPUT)"; exit 1; }
[ -d /proc/asound/Loopback ] || { fail "B5 snd-aloop made the Loopback card: $(cat /proc/asound/cards)"; exit 1; }

# The beeper: C6 E6 G6, a pause, C7 as a quarter, A#5 as a sixteenth (b=120: an eighth is 250 ms).
beeper_melody="b5:d=8,o=6,b=120:c,e,g,p,4c7,16a#5"
beeper_notes="c6/250 e6/250 g6/250 p/250 c7/500 a#5/125"
python3 "$check" beeper "$results/beeper-node" "$results/beeper-events" &
beeper=$!
# Python's start over 9p under TCG can take seconds: bounded by the clock.
deadline=$(( $(date +%s) + 30 ))
while [ ! -s "$results/beeper-node" ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.1; done
node=$(cat "$results/beeper-node" 2> /dev/null)
[ -n "$node" ] || { fail "B5 the uinput beeper was not made: $(ls /dev/input)"; exit 1; }
printf '[sound]\noutput = "beeper"\n' > /tmp/beeper.toml
start_nookd beeper
if status_within 20 "sound: beeper on $node"; then
  pass "B1 nookd finds the uinput beeper by its capabilities ($node)"
else
  fail "B1 nookd did not find the uinput beeper $node: $(ctl status | grep sound:)"
fi
ctl enqueue --title "Beeper" --sound "$beeper_melody" > /dev/null
status_within 30 "1 played" || fail "B5 the beeper's melody did not end: $(ctl status | grep sound:)"
python3 "$check" tones "$results/beeper-events" 0 "$beeper_notes" || status=1
before=$(wc -l < "$results/beeper-events")
ctl quiet on > /dev/null
ctl enqueue --title "Quiet beeper" --priority high --sound "$beeper_melody" > /dev/null
status_within 30 "0 lowered and 1 silenced by the room" || fail "B3 quiet hours did not silence the beeper's sound: $(ctl status | grep sound:)"
# The melody's own length and more: had it played, every tone would be recorded by now.
sleep 2
after=$(wc -l < "$results/beeper-events")
if [ "$after" = "$before" ] && ctl status | grep -q "sound: beeper.*1 played.*1 silenced"; then
  pass "B3 B5 quiet hours: the beeper receives no EV_SND event at all, status counts the sound silenced"
else
  fail "B3 B5 quiet hours: the beeper received $((after - before)) events: $(tail -n +$((before + 1)) "$results/beeper-events" | tr '\n' ' ')"
fi
stop_nookd beeper
kill -TERM "$beeper"
wait "$beeper"

# snd-aloop: A4, C6, E5 as a quarter, A6 as a sixteenth, each after a pause, so every note stands
# apart in the capture; the playback side is subdevice 0 of device 0, captured on device 1. The
# pause at the end fills the loopback's ring with silence: as a stream stops, snd-aloop hands the
# capture side a few milliseconds more of that ring (aplay's streams too), which must not be a note.
pcm_melody="b5:d=8,o=5,b=120:a4,p,c6,p,4e,p,16a6,p"
pcm_notes="a4/250 p/250 c6/250 p/250 e5/500 p/250 a6/125 p/250"
printf '[sound]\noutput = "alsa"\ndevice = "hw:Loopback,0,0"\nvolume = 100\n' > /tmp/alsa.toml
# capture NAME: arecord on the capture side, running before anything plays (snd-aloop drops what
# is played while nothing captures); captured ends it.
capture() {
  arecord -q -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 1 -t raw "$results/$1.raw" 2> "$results/$1.arecord" &
  recorder=$!
  deadline=$(( $(date +%s) + 20 ))
  until grep -q "state: RUNNING" /proc/asound/Loopback/pcm1c/sub0/status 2> /dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || { fail "B5 arecord did not start capturing: $(cat "$results/$1.arecord")"; break; }
    sleep 0.1
  done
}
captured() { sleep 0.3; kill -INT "$recorder"; wait "$recorder"; }
start_nookd alsa
status_within 20 "sound: alsa on hw:Loopback,0,0, idle" || fail "B1 nookd's ALSA output is not ready: $(ctl status | grep sound:)"
# ALSA streams in real time, and the emulated CPU does not always keep up: when the host takes
# it away for 110 ms, the kernel's drain times out (EIO) or the stream underruns and loses
# samples. Such a play is spoiled by the host, not by nookd: up to three plays, each judged
# whole, the first clean one counting; a wrong pitch or length fails all three.
for attempt in 1 2 3; do
  done_before=$(sound_counts)
  capture "pcm-melody-$attempt"
  ctl enqueue --title "Loopback $attempt" --sound "$pcm_melody" > /dev/null
  deadline=$(( $(date +%s) + 30 ))
  while [ "$(sound_counts)" = "$done_before" ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
  captured
  if verdict=$(python3 "$check" pcm "$results/pcm-melody-$attempt.raw" "$pcm_notes") && ctl status | grep -q "sound: alsa on hw:Loopback,0,0, idle"; then
    echo "$verdict"
    break
  fi
  echo "note B5 ALSA play $attempt spoiled: $(ctl status | grep sound:); $(echo "$verdict" | tr '\n' ' ')"
  [ "$attempt" = 3 ] && { echo "$verdict"; fail "B5 no clean ALSA play in three"; }
done
capture pcm-quiet
ctl quiet on > /dev/null
ctl enqueue --title "Quiet loopback" --priority high --sound "$pcm_melody" > /dev/null
status_within 30 "0 lowered and 1 silenced by the room" || fail "B3 quiet hours did not silence the ALSA sound: $(ctl status | grep sound:)"
sleep 2
captured
python3 "$check" silent "$results/pcm-quiet.raw" || status=1
ctl status | grep -q "sound: alsa.*played.*, 0 lowered and 1 silenced" \
  && pass "B3 status counts the ALSA sound silenced" || fail "B3 status after quiet hours: $(ctl status | grep sound:)"
ctl quiet off > /dev/null

# Unplugged mid-melody: sixteen seconds of notes, the card unbound from its driver two seconds in
# (unbind waits until nookd and arecord have closed it, as a USB speaker pulled out does).
ctl enqueue --title "Long melody" --dwell 30 --sound "long:d=4,o=6,b=60:c,d,e,f,g,a,b,c7,c,d,e,f,g,a,b,c7" > /dev/null
status_within 20 "sound: alsa on hw:Loopback,0,0, playing" || fail "B5 the long melody did not start: $(ctl status | grep sound:)"
sleep 2
logged=$(wc -l < "$log")
timeout 30 sh -c 'echo snd_aloop.0 > /sys/bus/platform/drivers/snd_aloop/unbind' \
  || fail "B5 unbinding snd_aloop.0 did not finish"
[ -d /proc/asound/Loopback ] && fail "B5 the Loopback card is still there after its unbind"
status_within 20 "sound: alsa on hw:Loopback,0,0, unavailable" || fail "B1 status does not say the output is unavailable: $(ctl status | grep sound:)"
ctl dismiss > /dev/null
ctl enqueue --title "After the unplug" --sound "" > /dev/null
if status_within 30 'showing "After the unplug" (presented)' && kill -0 "$daemon"; then
  pass "B1 B5 after the unplug nookd runs on and the next card shows ($(ctl status | grep -m1 showing))"
else
  fail "B1 B5 after the unplug: $(ctl status | tr '\n' '|')"
fi
# (ENODEV, or EBADFD from a write under way, which the PCM's state says is its device gone: either
# way the line says the output tries again once it is plugged in.)
lines=$(tail -n +$((logged + 1)) "$log" | grep -c "sound: alsa output unavailable")
if [ "$lines" = 1 ] && tail -n +$((logged + 1)) "$log" | grep "sound: alsa output unavailable" | grep -q "(plugged in, or a device to find)"; then
  pass "B1 B5 the card unbound mid-melody is one log line: $(tail -n +$((logged + 1)) "$log" | grep "sound: alsa output unavailable")"
else
  fail "B1 B5 the unplug logged $lines lines about the output: $(tail -n +$((logged + 1)) "$log" | grep "sound:" | tr '\n' '|')"
fi
stop_nookd alsa
exit $status
