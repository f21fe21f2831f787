#!/bin/sh
# The service tests (SPEC N3, issue 7), run by systemd as PID 1 in the guest (Hardware/vm/run
# service): Hardware/install on a booted Debian, udev applying udev/70-nook.rules to the real
# DRM card and a gpio-sim chip, nookd under the hardened unit driving DRM, the socket for the
# nook group only, the journal in the unit's StateDirectory across a restart and a kill -9.
. "$(dirname "$0")/lib.sh"
socket=/run/nook/nookd.sock
# nookctl as a user: as USER SUBCOMMAND [ARGS...]
as() { user=$1; shift; runuser -u "$user" -- "$nookctl" "$@" --socket "$socket"; }

if "$repo/Hardware/install" --binaries "$binaries" > "$results/install.log" 2>&1; then
  pass "N3 Hardware/install on a booted system: binaries, unit, udev rules, config, nook user"
else
  fail "Hardware/install: $(tail -3 "$results/install.log")"
fi
udevadm settle -t 20
udevadm info /dev/dri/card0 > "$results/udevadm-info-card0.txt" 2>&1
stat /dev/dri/card0 >> "$results/udevadm-info-card0.txt" 2>&1
journalctl -u systemd-udevd --no-pager > "$results/udevd.log" 2>&1

# udev (issue 7): the rules as udev itself applies them to real devices.
for _ in $(seq 25); do [ "$(stat -c '%G' /dev/dri/card0)" = nook ] && break; sleep 0.2; done
if [ "$(stat -c '%G %a' /dev/dri/card0)" = "nook 660" ] && [ "$(readlink -f /dev/nook/display)" = /dev/dri/card0 ]; then
  pass "N3 udev: the virtio_gpu card is nook:0660 with the /dev/nook/display link"
else
  fail "udev on card0: $(stat -c '%G %a' /dev/dri/card0), link $(readlink -f /dev/nook/display)"
fi
if [ "$(stat -c '%G' /dev/dri/renderD128)" != nook ]; then
  pass "N3 udev: the render node is left alone (least privilege)"
else
  fail "the render node was given to nook"
fi
udevadm test /sys/class/drm/card0 > "$results/udevadm-test.log" 2>&1
if grep -q "70-nook.rules" "$results/udevadm-test.log" && grep -qi "group.*nook\|GROUP=\"nook\"\|gid=" "$results/udevadm-test.log"; then
  pass "N3 udevadm test /sys/class/drm/card0 applies 70-nook.rules"
else
  fail "udevadm test did not show 70-nook.rules: $(grep -i nook "$results/udevadm-test.log" | head -3)"
fi
modprobe configfs
mount -t configfs none /sys/kernel/config 2> /dev/null
if insmod "$repo/.build-vm/gpio-sim/nook-gpio-sim.ko"; then
  sim=/sys/kernel/config/gpio-sim/service
  mkdir "$sim" "$sim/bank0" && echo 4 > "$sim/bank0/num_lines" && echo 1 > "$sim/live"
  udevadm settle -t 10
  chip=$(cat "$sim/bank0/chip_name")
  udevadm test "/sys/bus/gpio/devices/$chip" > "$results/udevadm-test-gpio.log" 2>&1
  if [ "$(stat -c '%G %a' "/dev/$chip")" = "nook 660" ]; then
    pass "N3 udev: a gpio-sim chip (/dev/$chip) is nook:0660"
  else
    fail "udev on /dev/$chip: $(stat -c '%G %a' "/dev/$chip")"
  fi
else
  fail "the gpio-sim module did not load"
fi

# nookd under the unit.
systemctl enable --now nookd.service > "$results/enable.log" 2>&1
for _ in $(seq 100); do [ "$(systemctl is-active nookd)" = active ] && break; sleep 0.2; done
if [ "$(systemctl is-active nookd)" = active ]; then
  pass "N3 systemctl enable --now nookd: active (Type=notify, READY=1 received)"
else
  fail "nookd under the unit: $(systemctl status nookd --no-pager 2>&1 | tail -8)"
fi
journalctl -u nookd --no-pager > "$results/nookd-journal-1.log" 2>&1
useradd --no-create-home --groups nook alice
useradd --no-create-home bob
if as alice enqueue --title "Hello from systemd" --tint green --dwell 30 > "$results/alice.txt" 2>&1; then
  pass "C4 a member of the nook group enqueues through /run/nook/nookd.sock"
else
  fail "alice could not enqueue: $(cat "$results/alice.txt")"
fi
as bob status > "$results/bob.txt" 2>&1
code=$?
if [ "$code" = 3 ]; then
  pass "C4 a user outside the nook group cannot reach the socket (nookctl exits 3)"
else
  fail "bob got exit $code: $(cat "$results/bob.txt")"
fi
sleep 1
status_text=$(as alice status --json)
if echo "$status_text" | grep -q '"backend":"drm"' && echo "$status_text" | grep -q '"title":"Hello from systemd"'; then
  pass "D1 N3 nookd under the hardened unit drives the DRM card and shows the card"
else
  fail "status under the unit: $status_text"
fi

# The journal in the unit's StateDirectory: a restart and a kill -9 keep the waiting cards.
# suspend and resume hold back everyone's cards: root's (U3), not a member of nook's.
as root suspend > /dev/null
first=$(as alice enqueue --title "Water leak" --priority high)
second=$(as alice enqueue --title "Backup complete")
systemctl restart nookd
for _ in $(seq 100); do [ "$(systemctl is-active nookd)" = active ] && break; sleep 0.2; done
listed=$(as alice list --json)
if echo "$listed" | grep -q "$first" && echo "$listed" | grep -q "$second" && [ "$(stat -c '%U' /var/lib/nook/journal)" = nook ]; then
  pass "N2 systemctl restart keeps the waiting cards (journal /var/lib/nook/journal, owned by nook)"
else
  fail "after restart: $listed; $(ls -l /var/lib/nook 2>&1)"
fi
pid=$(systemctl show -p MainPID --value nookd)
kill -9 "$pid"
sleep 1
for _ in $(seq 100); do [ "$(systemctl is-active nookd)" = active ] && [ "$(systemctl show -p MainPID --value nookd)" != "$pid" ] && break; sleep 0.2; done
listed=$(as alice list --json 2>&1)
if [ "$(systemctl show -p NRestarts --value nookd)" -ge 1 ] && echo "$listed" | grep -q "$first" && echo "$listed" | grep -q "$second"; then
  pass "N2 after kill -9, Restart=on-failure brings nookd back with every waiting card"
else
  fail "after kill -9: restarts $(systemctl show -p NRestarts --value nookd), $listed"
fi

# W1: a display loop that hangs (debug.hang_display_file, fault injection) stops the watchdog
# pings; systemd kills nookd and restarts it, and the journal brings the waiting card back.
mkdir -p /etc/systemd/system/nookd.service.d
printf '[Service]\nWatchdogSec=3\n' > /etc/systemd/system/nookd.service.d/watchdog-test.conf
cp /etc/nook/nook.toml /etc/nook/nook.toml.orig
printf '\n[debug]\nhang_display_file = "/var/lib/nook/hang-display"\n' >> /etc/nook/nook.toml
systemctl daemon-reload
systemctl restart nookd
for _ in $(seq 100); do [ "$(systemctl is-active nookd)" = active ] && break; sleep 0.2; done
restarts=$(systemctl show -p NRestarts --value nookd)
pid=$(systemctl show -p MainPID --value nookd)
as root suspend > /dev/null
waiting=$(as alice enqueue --title "Waiting through a hang" --dwell 30)
touch /var/lib/nook/hang-display
as root resume > /dev/null
for _ in $(seq 150); do
  [ "$(systemctl show -p NRestarts --value nookd)" -gt "$restarts" ] && [ "$(systemctl is-active nookd)" = active ] && break
  sleep 0.2
done
sleep 1
listed=$(as alice list --json 2>&1)
journalctl -u nookd --no-pager > "$results/nookd-journal-watchdog.log" 2>&1
if grep -q "display loop now hangs" "$results/nookd-journal-watchdog.log" && grep -qi "watchdog timeout" "$results/nookd-journal-watchdog.log" \
   && [ "$(systemctl show -p MainPID --value nookd)" != "$pid" ] && echo "$listed" | grep -q "$waiting"; then
  pass "W1 a hung display loop stops the pings; systemd's watchdog restarts nookd and the journal restores the card"
else
  fail "watchdog: restarts $(systemctl show -p NRestarts --value nookd) (was $restarts), $(grep -i "watchdog\|hangs" "$results/nookd-journal-watchdog.log" | tail -3), $listed"
fi
rm -f /etc/systemd/system/nookd.service.d/watchdog-test.conf /var/lib/nook/hang-display
mv /etc/nook/nook.toml.orig /etc/nook/nook.toml
systemctl daemon-reload
systemctl restart nookd
for _ in $(seq 100); do [ "$(systemctl is-active nookd)" = active ] && break; sleep 0.2; done

# E1: nook-notify on the system bus under its unit, with the shipped policy: the nook group
# (alice) and root may notify, others (bob) are refused by the bus, and one user cannot close
# another's notification.
systemctl start nook-notify.service > "$results/notify-start.log" 2>&1
for _ in $(seq 100); do [ "$(systemctl is-active nook-notify)" = active ] && break; sleep 0.2; done
sysbus=unix:path=/run/dbus/system_bus_socket
notify() { user=$1; shift; runuser -u "$user" -- env DBUS_SESSION_BUS_ADDRESS=$sysbus HOME=/ notify-send "$@"; }
if [ "$(systemctl is-active nook-notify)" = active ] && notify alice -p "From a system service" > "$results/notify-alice.txt" 2>&1 \
   && as alice list --json | grep -q "From a system service"; then
  pass "E1 nook-notify under its unit on the system bus: notify-send from the nook group reaches nookd"
else
  fail "nook-notify: $(systemctl is-active nook-notify), $(cat "$results/notify-alice.txt" "$results/notify-start.log" | tail -3)"
fi
if ! notify bob "From a stranger" > "$results/notify-bob.txt" 2>&1 && grep -q "AccessDenied" "$results/notify-bob.txt"; then
  pass "E1 the system bus policy refuses notify-send from outside the nook group"
else
  fail "bob's notification: $(cat "$results/notify-bob.txt")"
fi
root_id=$(DBUS_SESSION_BUS_ADDRESS=$sysbus notify-send -p -t 0 "From root" 2> "$results/notify-root.txt")
runuser -u alice -- env HOME=/ gdbus call --system --dest org.freedesktop.Notifications --object-path /org/freedesktop/Notifications \
  --method org.freedesktop.Notifications.CloseNotification "$root_id" > "$results/notify-close.txt" 2>&1
if [ -n "$root_id" ] && grep -q "AccessDenied" "$results/notify-close.txt"; then
  pass "E1 U3 a member of the nook group cannot close root's notification"
else
  fail "closing root's notification ($root_id) as alice: $(cat "$results/notify-close.txt" "$results/notify-root.txt")"
fi
systemd-analyze security nook-notify.service > "$results/security-notify.txt" 2>&1
echo "nook-notify.service exposure on the booted system: $(tail -1 "$results/security-notify.txt")"
journalctl -u nook-notify --no-pager > "$results/nook-notify-journal.log" 2>&1
systemctl stop nook-notify

systemd-analyze security nookd.service > "$results/security.txt" 2>&1
echo "nookd.service exposure on the booted system: $(tail -1 "$results/security.txt")"
systemctl stop nookd
if [ "$(systemctl show -p Result --value nookd)" = success ]; then
  pass "N2 systemctl stop: nookd exits cleanly (Result=success)"
else
  fail "stop: Result=$(systemctl show -p Result --value nookd)"
fi
journalctl -u nookd --no-pager > "$results/nookd-journal.log" 2>&1
exit $status
