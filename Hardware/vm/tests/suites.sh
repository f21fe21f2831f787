#!/bin/sh
# Several suites in one boot (the aarch64 lane, where a boot under TCG costs about a minute):
# each script named in $suites (the host's env file) runs with a results folder of its own.
. /mnt/results/env
for suite in $suites; do
  mkdir -p "/mnt/results/$suite"
  echo "note suite $suite started at $(cut -d' ' -f1 /proc/uptime) s after boot"
  results=/mnt/results/$suite "$(dirname "$0")/$suite.sh"
done
echo "note suite all done at $(cut -d' ' -f1 /proc/uptime) s after boot"
exit 0
