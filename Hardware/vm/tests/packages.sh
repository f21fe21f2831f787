#!/bin/sh
# The Debian packages installed where they will live (SPEC P9), run by systemd as PID 1 in the
# Debian 13 arm64 guest (Hardware/vm/run --arch arm64 packages): the previous version's nook
# with apt, offline; nookd started by the package on the virtio-gpu panel; a member of the nook
# group puts a card on the glass; `systemctl reload nook` applies an edited nook.toml; the
# current version installed over it keeps the config, the journal and the history; nook-http
# serves its page. The host compares the glass with nookd's frames (dump-*.ppm, snapshot-*.png).
# From the host's env file: $current and $previous, folders of .debs (the shared tree's).
. "$(dirname "$0")/lib.sh"
socket=/run/nook/nookd.sock
export DEBIAN_FRONTEND=noninteractive
# as USER COMMAND...: what a user of the board runs, with that user's groups and no --socket.
as() { user=$1; shift; runuser -u "$user" -- "$@"; }
active() { for _ in $(seq 150); do [ "$(systemctl is-active "$1")" = active ] && return 0; sleep 0.2; done; return 1; }
presented() { for _ in $(seq 150); do nookctl status | grep -q "(presented)" && return 0; sleep 0.2; done; return 1; }
version_of() { dpkg-query -W -f='${Version}' "$1" 2> /dev/null; }
echo "note booted to the test at $(cut -d' ' -f1 /proc/uptime) s (systemd $(systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p'))"

old=$(ls "$previous"/nook_*_arm64.deb)
started=$(cut -d' ' -f1 /proc/uptime)
# No sources at all: apt must find every dependency already installed.
if apt install -y "$old" < /dev/null > "$results/apt-nook-previous.log" 2>&1 && [ "$(dpkg-query -W -f='${Status}' nook)" = "install ok installed" ]; then
  pass "P9 apt install ./$(basename "$old") on Debian 13 arm64, offline ($(version_of nook), $(awk -v s="$started" '{printf "%.0f", $1 - s}' /proc/uptime) s)"
else
  fail "P9 apt install ./$(basename "$old"): $(tail -4 "$results/apt-nook-previous.log")"
fi
echo "note installed at $(cut -d' ' -f1 /proc/uptime) s"
journalctl -b --no-pager > "$results/journal-install.log" 2>&1

# udev's rules from the package, applied to the card that was there before it (the postinst).
if [ "$(stat -c '%G %a' /dev/dri/card0)" = "nook 660" ] && [ "$(readlink -f /dev/nook/display)" = /dev/dri/card0 ]; then
  pass "P9 the install applied 70-nook.rules to the card already there: /dev/dri/card0 is nook:0660, /dev/nook/display"
else
  fail "P9 udev after the install: /dev/dri/card0 is $(stat -c '%G %a' /dev/dri/card0), /dev/nook/display -> $(readlink -f /dev/nook/display)"
fi
if active nookd && nookctl status --json > "$results/status-installed.json" 2>&1 && grep -q '"backend":"drm"' "$results/status-installed.json"; then
  pass "P9 the package started nookd under systemd (Type=notify), on the virtio-gpu panel through DRM"
else
  fail "P9 nookd after the install: $(systemctl is-active nookd), $(grep -o '"display":{[^}]*}' "$results/status-installed.json" 2> /dev/null)"
fi
if [ "$(systemctl is-enabled nookd)" = enabled ] && [ "$(systemctl show -p Id --value nook)" = nookd.service ]; then
  pass "P9 nookd.service is enabled, and nook.service names it (the Alias)"
else
  fail "P9 enabled: $(systemctl is-enabled nookd 2>&1), nook.service is $(systemctl show -p Id --value nook 2>&1)"
fi

# A user of the board: added to the group the package made, then nookctl as documented. The
# card stays until dismissed below: with the default dwell it had slid out before the host's
# screendump once (TCG with other guests beside).
useradd --create-home --groups nook alice
if as alice nookctl enqueue --title Hello --dwell 600 > "$results/alice-enqueue.txt" 2>&1 && presented; then
  pass "P9 a member of the nook group runs nookctl enqueue --title Hello: the card is presented"
else
  fail "P9 alice's card: $(cat "$results/alice-enqueue.txt") $(nookctl status 2>&1 | tail -3)"
fi
sleep 0.5
as alice nookctl snapshot -o /tmp/hello.png > /dev/null 2>&1 && cp /tmp/hello.png "$results/snapshot-hello.png"
dump hello

# systemctl reload nook: the edited config read again (the light theme applied without a restart).
pid=$(systemctl show -p MainPID --value nookd)
sed -i 's/^appearance = "dark"/appearance = "light"/' /etc/nook/nook.toml
grep -q '^appearance = "light"' /etc/nook/nook.toml || fail "P9 nook.toml has no appearance = \"dark\" to change"
if systemctl reload nook > "$results/reload.txt" 2>&1; then
  for _ in $(seq 100); do journalctl -u nookd --no-pager | grep -q "reloaded /etc/nook/nook.toml.*theme.appearance" && break; sleep 0.2; done
fi
journalctl -u nookd --no-pager > "$results/journal-reload.log" 2>&1
if grep -q "reloaded /etc/nook/nook.toml.*theme.appearance" "$results/journal-reload.log" && [ "$(systemctl show -p MainPID --value nookd)" = "$pid" ]; then
  pass "P9 systemctl reload nook: nookd (the same process) read the changed /etc/nook/nook.toml: $(grep -o 'reloaded /etc/nook/nook.toml.*' "$results/journal-reload.log" | tail -1)"
else
  fail "P9 reload: $(cat "$results/reload.txt") $(grep -i reload "$results/journal-reload.log" | tail -2)"
fi
# The card ends (into the history); the home is then drawn in the light theme.
as alice nookctl dismiss > /dev/null 2>&1
for _ in $(seq 100); do nookctl status | grep -q "(presented)" || break; sleep 0.2; done
sleep 1
dump home-light

# The next version over it: the edited conffile, the waiting cards (journal) and the history stay.
nookctl suspend > /dev/null
# A long dwell: restored after the upgrade, it is still queued or on the glass when listed.
waiting=$(as alice nookctl enqueue --title "Waiting through the upgrade" --dwell 600)
history_before=$(nookctl history list --json 2>&1)
echo "$history_before" | grep -q '"Hello"' || fail "P9 Hello is not in the history before the upgrade: $history_before"
new=$(ls "$current"/nook_*_arm64.deb)
if apt install -y "$new" < /dev/null > "$results/apt-nook-upgrade.log" 2>&1 && [ "$(version_of nook)" = "$(dpkg-deb -f "$new" Version)" ]; then
  pass "P9 apt install ./$(basename "$new") upgrades $(basename "$old" | cut -d_ -f2) to $(version_of nook)"
else
  fail "P9 the upgrade: $(tail -4 "$results/apt-nook-upgrade.log")"
fi
if active nookd && [ "$(systemctl show -p MainPID --value nookd)" != "$pid" ] && nookctl status --json | grep -q '"backend":"drm"'; then
  pass "P9 nookd runs again after the upgrade (restarted on the new binary), on the panel through DRM"
else
  fail "P9 nookd after the upgrade: $(systemctl status nookd --no-pager 2>&1 | tail -5)"
fi
if grep -q '^appearance = "light"' /etc/nook/nook.toml && [ ! -e /etc/nook/nook.toml.dpkg-new ] && [ ! -e /etc/nook/nook.toml.dpkg-old ]; then
  pass "P9 the upgrade kept the edited /etc/nook/nook.toml (a conffile; dpkg asked nothing)"
else
  fail "P9 nook.toml after the upgrade: $(grep appearance /etc/nook/nook.toml) $(ls /etc/nook)"
fi
listed=$(nookctl list --json 2>&1)
if echo "$listed" | grep -q "$waiting"; then
  pass "P9 the upgrade kept the journal: the waiting card is still queued"
else
  fail "P9 the journal after the upgrade: $listed"
fi
history_after=$(nookctl history list --json 2>&1)
if echo "$history_after" | grep -q '"Hello"'; then
  pass "P9 the upgrade kept the history: Hello is still in it"
else
  fail "P9 the history after the upgrade: $history_after"
fi
nookctl resume > /dev/null

# nook-http: its package installed beside nook, its page served on 127.0.0.1:8722.
http=$(ls "$current"/nook-http_*_arm64.deb)
if apt install -y "$http" < /dev/null > "$results/apt-nook-http.log" 2>&1 && active nook-http; then
  pass "P9 apt install ./$(basename "$http"): nook-http started under systemd"
else
  fail "P9 nook-http: $(tail -3 "$results/apt-nook-http.log") $(systemctl status nook-http --no-pager 2>&1 | tail -4)"
fi
for _ in $(seq 50); do curl -fsS http://127.0.0.1:8722/ > "$results/page.html" 2> "$results/curl.txt" && break; sleep 0.2; done
if grep -q "<title>Nook</title>" "$results/page.html"; then
  pass "P9 curl http://127.0.0.1:8722/ in the guest gets Nook's page ($(wc -c < "$results/page.html") bytes)"
else
  fail "P9 the page: $(cat "$results/curl.txt") $(head -c 200 "$results/page.html")"
fi

# A figure, not a check: `systemctl start nook` to nookd's first frame on the glass, and to its
# socket answering, on the current version with nothing to restore (the waiting card cancelled).
# The times come from the kernel's trace, one clock: markers written before and after, the execs,
# and the page flips' completion events delivered to a DRM client (nookd is the only one; the
# kernel's own commits carry no file). nookd's set-up flips once to learn whether the driver
# flips pages, to the cleared buffer its mode set already shows: its first frame is the second
# flip. It fails only if nookd does not come back.
tracing=/sys/kernel/tracing
[ -e "$tracing/trace_marker" ] || mount -t tracefs nodev "$tracing" 2> /dev/null || true
traced=
mark() { [ -z "$traced" ] || echo "nook-$1" > "$tracing/trace_marker"; }
# ms_to PATTERN [N]: milliseconds from the start marker to the Nth trace line after it matching
# PATTERN (the first by default), or "?"; a timestamp "SECONDS.MICROSECONDS:" precedes each event.
ms_to() {
  awk -v pattern="$1" -v nth="${2:-1}" '
    { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1); break } }
    / tracing_mark_write: nook-start$/ { start = t; next }
    start != "" && $0 ~ pattern && ++seen == nth { printf "%.0f", (t - start) * 1000; found = 1; exit }
    END { if (!found) printf "?" }' "$results/start-trace.txt" 2> /dev/null || printf "?"
}
nookctl cancel "$waiting" > /dev/null 2>&1
if systemctl stop nook > "$results/stop.txt" 2>&1 && [ "$(systemctl is-active nookd)" != active ]; then
  if [ -w "$tracing/trace_marker" ]; then
    echo 0 > "$tracing/tracing_on"; : > "$tracing/trace"
    echo 1 > "$tracing/events/drm/drm_vblank_event_delivered/enable"
    echo 1 > "$tracing/events/sched/sched_process_exec/enable"
    echo 1 > "$tracing/tracing_on" && traced=1
  fi
  mark start
  timeout 60 systemctl start nook > "$results/start.txt" 2>&1
  mark started
  # Tried every 10 ms (each try also a nookctl run) once systemctl start returned (READY=1).
  for _ in $(seq 300); do nookctl status > /dev/null 2>&1 && break; sleep 0.01; done
  mark answered
  # One nookctl status more, timed: what of the socket's figure is nookctl's own start.
  mark ctl; nookctl status --json > "$results/status-restarted.json" 2>&1; mark ctl-done
  if [ -n "$traced" ]; then
    echo 0 > "$tracing/tracing_on"
    cp "$tracing/trace" "$results/start-trace.txt"
    echo 0 > "$tracing/events/drm/drm_vblank_event_delivered/enable"
    echo 0 > "$tracing/events/sched/sched_process_exec/enable"
  fi
fi
if active nookd && grep -q '"backend":"drm"' "$results/status-restarted.json" 2> /dev/null; then
  flips=$(grep -o '"flips":{[^}]*}' "$results/status-restarted.json")
  if [ -n "$traced" ]; then
    emulated="(arm64 guest, emulated under TCG)"
    flip='drm_vblank_event_delivered: file=[0-9a-f]*[1-9a-f]'
    execd=$(ms_to 'sched_process_exec: filename=[^ ]*nookd ') started=$(ms_to 'nook-started$')
    mode_set=$(ms_to ' nookd-[0-9]+ .*drm_vblank_event_delivered: file=0+,')
    ctl=$(awk -v a="$(ms_to 'nook-ctl$')" -v b="$(ms_to 'nook-ctl-done$')" 'BEGIN { print b - a }')
    echo "note nookd_start_to_first_frame_ms $emulated: $(ms_to "$flip" 2) (systemctl start nook to nookd's first" \
      "page flip completed on the virtio-gpu panel, in the kernel's trace; nookd exec'd at $execd ms, its mode set" \
      "(a cleared buffer) at $mode_set ms, systemctl start returned at $started ms; $flips)"
    echo "note nookd_start_to_socket_ms $emulated: $(ms_to 'nook-answered$') (nookctl status answered, tried" \
      "every 10 ms once systemctl start returned; one nookctl status takes $ctl ms here)"
  else
    echo "note nookd_start_to_first_frame_ms (arm64 guest, emulated under TCG): not measured, no kernel trace" \
      "($tracing); $flips"
  fi
else
  seen="$(cat "$results/stop.txt" "$results/start.txt" 2> /dev/null)"
  seen="$seen $(systemctl status nookd --no-pager 2>&1 | tail -5)"
  fail "P9 nookd after systemctl stop nook and systemctl start nook: $(echo "$seen" | tr '\n' ' ')"
fi
journalctl -b --no-pager > "$results/journal.log" 2>&1
echo "note done at $(cut -d' ' -f1 /proc/uptime) s"
exit 0
