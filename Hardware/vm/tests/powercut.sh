#!/bin/sh
# Power-cut tests inside the guest (SPEC J1, J2; issues 14, 25). nookd keeps its journal on an
# ext4 file system on a virtio disk; the guest cuts its own power (QEMU's isa-debug-exit port:
# QEMU exits at once, the host kills it if not) right after the acknowledgements, so everything
# in the guest's page cache is lost, as on a pulled plug; the next boot, on the same disk,
# checks what came back. One boot per phase, several nookd instances per boot (each its own
# journal), so that one cut serves several variants:
#   1  ack: lockstep through nookctl, cut right after its last ack; lockstep acknowledged 7 s,
#      a pipelined burst 3 s, and cancels 1 s before the cut
#   2  checks 1; ack: a pipelined burst cut mid-way (or just after), while another one's
#      coalescing updates compact its journal (the cut comes while a compaction's new file is
#      being written, when the guest sees it in time); cards that ran their course (--wait);
#      interval: lockstep until the cut, of which only the last second may be lost
#   3  checks 2, unmounts cleanly (the host then runs e2fsck -f on the image)
# Acknowledgements are written to the results share (the host's disk) as they come.
. "$(dirname "$0")/lib.sh"
client="/usr/bin/python3 $(dirname "$0")/powercut-client.py"
previous=${previous:-}

modprobe virtio_blk && modprobe ext4 || { fail "modprobe virtio_blk ext4"; exit 1; }
for _ in $(seq 100); do [ -b /dev/vda ] && break; sleep 0.1; done
mkdir -p /mnt/disk
if mount -t ext4 /dev/vda /mnt/disk; then pass "phase $phase: the ext4 disk mounts (after the cut, its journal replayed)"; else fail "mount /dev/vda"; exit 1; fi

now() { cut -d' ' -f1 /proc/uptime; }
# Room for every card a burst or a lockstep client sends (the default capacity, 256, would
# refuse the rest).
printf '[queue]\ncapacity = 100000\n' > /tmp/nook.toml
# start NAME SYNC [LOG LEVEL]: a nookd whose journal is on the disk, once it listens.
start() {
  mkdir -p "/mnt/disk/$1"
  rm -f "/tmp/$1.sock"
  "$nookd" --config /tmp/nook.toml --display mock --size 320x170 --socket "/tmp/$1.sock" --journal "/mnt/disk/$1/journal" \
    --journal-sync "$2" --log-level "${4:-info}" 2> "${3:-/tmp/$1.log}" &
  echo $! > "/tmp/$1.pid"
  for _ in $(seq 600); do grep -q "nookd ready" "${3:-/tmp/$1.log}" && return 0; sleep 0.05; done
  fail "nookd $1 did not start: $(tail -3 "${3:-/tmp/$1.log}")"
}
stop() { kill -TERM "$(cat "/tmp/$1.pid")"; wait "$(cat "/tmp/$1.pid")" 2> /dev/null; }
# cut_power: the power goes now; nothing after this line runs.
cut_power() {
  : > "$results/cut"
  printf '\001' | dd of=/dev/port bs=1 seek=244 count=1 2> /dev/null
  sleep 600
}
# ctl_enqueue NAME NUMBER [OPTIONS]: nookctl enqueue, the acknowledgement recorded.
ctl_enqueue() {
  name=$1 number=$2
  shift 2
  id=$("$nookctl" enqueue --title "$name #$number" --socket "/tmp/$name.sock" "$@") || { fail "nookctl enqueue $name #$number"; return 1; }
  echo "$id $(now) $number" >> "$results/$name.acked"
}

# What the previous phase's instances acknowledged, against what nookd restores.
if [ -n "$previous" ]; then
  while read -r name options; do
    leftover=$(ls "/mnt/disk/$name" | grep -v '^journal$' | tr '\n' ' ')
    [ -n "$leftover" ] && echo "note $name: left by the cut: $leftover"
    start "$name" ack "$results/$name-verify.log" debug
    stop "$name"
    # shellcheck disable=SC2086
    $client verify "$previous" "$name" "$results/$name-verify.log" $options
  done < "$previous/instances"
fi

case "$phase" in
1)
  for name in lockstep a7 a3 a1; do start "$name" ack; done
  printf '%s\n' lockstep a7 a3 a1 > "$results/instances"
  for number in $(seq 14); do ctl_enqueue lockstep "$number" --dwell 600; done
  $client lockstep /tmp/a1.sock a1 20 "$results"
  $client lockstep /tmp/a7.sock a7 20 "$results"
  t7=$(now)
  sleep 0.5
  $client burst /tmp/a3.sock a3 200 "$results"
  t3=$(now)
  sleep 1
  # The last 8 of a1's 20 cancelled, more than 1.5 s after they were acknowledged.
  $client cancel /tmp/a1.sock "$results" a1 12 8
  t1=$(now)
  sleep 0.6
  ctl_enqueue lockstep 15 --dwell 600
  cut=$(now)
  echo "note: last acknowledgements $(echo "$cut $t7 $t3 $t1" | awk '{printf "%.1f s (a7), %.1f s (a3: a burst), %.1f s (a1: cancels), 0 s (lockstep, nookctl)", $1-$2, $1-$3, $1-$4}') before the cut"
  cut_power
  ;;
2)
  for name in done plain compact interval; do start "$name" "$([ "$name" = interval ] && echo interval || echo ack)"; done
  # Cards that ran their course: --wait returns after the end; they must never come back.
  for number in 1 2 3; do
    "$nookctl" enqueue --title "done #$number" --dwell 0.2 --wait --socket /tmp/done.sock > /tmp/done.out
    if grep -q "hidden (completed)" /tmp/done.out; then
      echo "$(head -1 /tmp/done.out) $(now) $number" >> "$results/done.acked"
      head -1 /tmp/done.out >> "$results/done.ended"
    else
      fail "done #$number did not complete: $(cat /tmp/done.out)"
    fi
  done
  # Interval mode: lockstep, a request every 50 ms or so, until the power goes.
  $client lockstep /tmp/interval.sock interval 100000 "$results" 0.05 &
  $client burst /tmp/plain.sock plain 1000 "$results" &
  # 20 keys, 1,000-byte subtitles: each update ends the one before it, and the journal is
  # rewritten every 200 requests or so. Suspended, so that no card is on the glass
  # (coalescing leaves that one alone, Q4).
  "$nookctl" suspend --socket /tmp/compact.sock > /dev/null
  $client burst /tmp/compact.sock compact 1000 "$results" --stop-after 250 --keys 20 --subtitle 1000 &
  for _ in $(seq 2400); do [ -e "$results/compact.stopped" ] && break; sleep 0.05; done
  # Cut while the next compaction's new file is being written and synced.
  for _ in $(seq 50000); do [ -e /mnt/disk/compact/journal.new ] && break; done
  during=$([ -e /mnt/disk/compact/journal.new ] && echo "while journal.new was being written" || echo "(no compaction seen)")
  cut=$(now)
  printf 'done\nplain\ncompact --keys 20\ninterval --lost-within 1.0 --cut-at %s\n' "$cut" > "$results/instances"
  echo "note: cut $during, with $(wc -l < "$results/plain.acked") answers of the plain burst and $(wc -l < "$results/interval.acked") interval-mode ones recorded"
  cut_power
  ;;
3)
  sync
  if umount /mnt/disk; then pass "the disk unmounts cleanly"; else fail "umount /mnt/disk"; fi
  ;;
esac
exit $status
