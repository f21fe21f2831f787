# Shared by the guest test scripts: paths, PASS/FAIL lines (the harness counts them), and
# screendump requests answered by the host through the results share.
repo=$(cd "$(dirname "$0")/../../.." && pwd)
# A boot running several suites (the arm64 lane) gives each its own folder of the share.
results=${results:-/mnt/results}
binaries=$repo/.build/debug
nookd=$binaries/nookd
nookctl=$binaries/nookctl
socket=/tmp/nookd.sock
# What the host chose for this run (run_guest's GUEST_ENV), such as another nookd build.
[ -f /mnt/results/env ] && . /mnt/results/env
status=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; status=1; }
# dump NAME: the host writes what the guest shows to $results/dump-NAME.ppm: the first display
# device's, or that of the QEMU device whose id is in $screen (a guest with two cards).
dump() {
  # Written under another name first: the host must never read a request half written.
  printf '%s' "${screen:-}" > "$results/dump-$1.part" && mv "$results/dump-$1.part" "$results/dump-$1.request"
  for _ in $(seq 200); do [ -e "$results/dump-$1.done" ] && return 0; sleep 0.1; done
  fail "screendump $1 (the host did not answer)"
}
ctl() { "$nookctl" "$@" --socket "$socket"; }
# console_text LINE: something on the text console, so "the console is back" compares text.
console_text() {
  printf '\n  %s\n' "$1" > /dev/tty1 2>/dev/null
  sleep 0.5
}
