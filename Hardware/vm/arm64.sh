# The aarch64 lane of Hardware/vm/run (`--arch arm64`), sourced by it: qemu-system-aarch64's virt
# board with a Cortex-A72 (a Raspberry Pi 4's core) boots Debian 13's arm64 kernel; the guest's
# root is the Debian 13 arm64 userspace Hardware/vm/arm64-root unpacked, with this tree (the test
# scripts) and Hardware/dev/cross's aarch64 release binaries shared into it over 9p. Under TCG a
# boot costs about a minute, so the suites share two boots, side by side as `all`'s two lanes:
#   panel:    virtio-gpu 1280x400: drm-landscape, led
#   portrait: virtio-gpu 400x1280, panel orientation right side up: drm-portrait, proximity (IIO),
#             gpio (libgpiod 2.x, Debian 13's), touch
# (led and proximity both load i2c-stub with their own chips, so they are in different boots;
# gpio and touch use the mock display and go where they even the lanes out).
# `packages` (not part of `all`) boots a third guest of its own: a Debian 13 arm64 system with
# systemd, on which the .debs are installed (SPEC P9, about two minutes warm). `panel` and
# `portrait` are `all`'s boots one at a time; `compare` then checks the one against the other.

arm64_prepared=
arm64_prepare() {
  [ -n "$arm64_prepared" ] && return 0
  local vm
  vm=$(Hardware/vm/arm64-root | tail -1)
  [ -s "$vm/vmlinuz" ] || { echo "vm: Hardware/vm/arm64-root made no kernel" >&2; exit 1; }
  # NOOK_ARM64_BIN: a folder of aarch64 binaries already built (the output of Hardware/dev/cross).
  if [ -n "${NOOK_ARM64_BIN:-}" ]; then
    arm64_bin=$NOOK_ARM64_BIN
  else
    echo "vm: building the aarch64 binaries (Hardware/dev/cross arm64)"
    arm64_bin=$(Hardware/dev/cross arm64 | tail -1)
  fi
  [ -x "$arm64_bin/nookd" ] || { echo "vm: no aarch64 nookd in '$arm64_bin'" >&2; exit 1; }
  guest_root=$vm/root
  # Mount points for the shares (the root is read-only to the guest).
  mkdir -p "$guest_root$PWD" "$guest_root/opt/nook/bin"
  # The initramfs: the root's aarch64 busybox, the kernel's 9p modules and Hardware/vm/init.
  local version
  version=$(cat "$vm/version")
  initramfs=$work/initramfs.cpio.gz
  if [ ! -f "$initramfs" ] || [ Hardware/vm/init -nt "$initramfs" ] || [ "$vm/vmlinuz" -nt "$initramfs" ]; then
    local tree=$work/initramfs module
    rm -rf "$tree"
    mkdir -p "$tree"/{bin,proc,sys,dev,modules}
    cp "$guest_root/usr/bin/busybox" "$tree/bin/busybox"
    for module in fs/netfs/netfs net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p fs/overlayfs/overlay; do
      xz -dc "$guest_root/lib/modules/$version/kernel/$module.ko.xz" > "$tree/modules/$(basename "$module").ko"
    done
    cp Hardware/vm/init "$tree/init"
    (cd "$tree" && find . | cpio -o -H newc --quiet | gzip -1) > "$initramfs"
    rm -rf "$tree"
  fi
  guest_machine=(qemu-system-aarch64 -M virt -cpu cortex-a72)
  guest_kernel=$vm/vmlinuz guest_console=ttyAMA0
  arm64_gpio_sim=/lib/modules/$version/extra/nook-gpio-sim.ko
  arm64_libgpiod=$(zcat "$guest_root/usr/share/doc/libgpiod3/changelog.Debian.gz" | sed -n '1s/^[^(]*(\([0-9.]*\).*/\1/p')
  arm64_prepared=1
}

# arm64_guest NAME SUITES [QEMU ARGS...]: one boot running Hardware/vm/tests/suites.sh over SUITES.
arm64_guest() {
  local name=$1 suites=$2
  shift 2
  GUEST_ENV="suites='$suites' nookd=/opt/nook/bin/nookd nookctl=/opt/nook/bin/nookctl gpio_sim=$arm64_gpio_sim
expect_libgpiod=$arm64_libgpiod nookd_build=\"aarch64 release\"" \
  GUEST_APPEND="nook.shares=repo:$PWD,nookbin:/opt/nook/bin ${GUEST_APPEND:-}" \
    run_guest "$name" Hardware/vm/tests/suites.sh "$@" \
    -virtfs "local,path=$PWD,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$arm64_bin,mount_tag=nookbin,security_model=none,readonly=on"
}

arm64_panel() {
  local suites=${1:-drm-landscape led}
  GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} arm64_guest arm64-panel "$suites" -device virtio-gpu-pci,xres=1280,yres=400
  local r=$work/results-arm64-panel
  case " $suites " in *" drm-landscape "*) drm_landscape_checks "$r/drm-landscape" ;; esac
  arm64_figures "$r"
}

# The figures a boot's gpio and touch suites left, as the amd64 lane prints them.
arm64_figures() {
  [ -s "$1/gpio/edge-to-wake-ms" ] && echo "vm: gpio_edge_to_queue_wake_ms (libgpiod $arm64_libgpiod, aarch64 TCG): $(cat "$1/gpio/edge-to-wake-ms")"
  touch_figures "$1"
}

# Its glass, turned back, is compared with the panel boot's: `all` checks it once both have run.
arm64_portrait() {
  local suites=${1:-drm-portrait proximity gpio touch}
  GUEST_APPEND="video=Virtual-1:panel_orientation=right_side_up" GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} \
    arm64_guest arm64-portrait "$suites" -device virtio-gpu-pci,xres=400,yres=1280
  arm64_figures "$work/results-arm64-portrait"
}
arm64_portrait_checks() {
  drm_portrait_checks "$work/results-arm64-portrait/drm-portrait" "$work/results-arm64-panel/drm-landscape"
}

# P9: the .debs installed on a Debian 13 arm64 system booted with systemd (Hardware/vm/tests/
# packages.sh): made by Hardware/dev/package from the same aarch64 binaries (this version and the
# previous one, for the upgrade), installed on Hardware/vm/arm64-systemd-root's system, one boot.
arm64_packages() {
  # NOOK_ARM64_DEBS_BUILT=1: out/deb/arm64 and .build-deb/arm64/previous are this tree's already
  # (`Hardware/dev/package arm64 check --previous` ran before, as Hardware/dev/test runs it).
  if [ "${NOOK_ARM64_DEBS_BUILT:-}" != 1 ]; then
    echo "vm: building the arm64 .debs and the previous version (Hardware/dev/package arm64 --previous)"
    Hardware/dev/package arm64 --binaries "$arm64_bin" --previous > "$work/package.log" 2>&1 \
      || { failed=$((failed + 1)); echo "vm: FAIL Hardware/dev/package arm64: $(tail -3 "$work/package.log")"; return; }
  fi
  local system
  system=$(Hardware/vm/arm64-systemd-root out/deb/arm64/nook_*_arm64.deb out/deb/arm64/nook-http_*_arm64.deb | tail -1)
  [ -d "$system/root/usr/lib/systemd" ] || { failed=$((failed + 1)); echo "vm: FAIL Hardware/vm/arm64-systemd-root made no system"; return; }
  # The Debian system is the guest's root (read-only, under a tmpfs overlay); no network, so apt
  # works from what the system has.
  guest_root=$system/root GUEST_ENV="current=$PWD/out/deb/arm64 previous=$PWD/.build-deb/arm64/previous" \
    GUEST_APPEND="nook.systemd=1 nook.shares=repo:$PWD nook.timeout=${ARM64_PACKAGES_LIMIT:-1500} systemd.show_status=1" \
    GUEST_TIMEOUT=$((${ARM64_PACKAGES_LIMIT:-1500} + 300)) \
    run_guest arm64-packages Hardware/vm/tests/packages.sh -device virtio-gpu-pci,xres=1280,yres=400 -nic none \
    -virtfs "local,path=$PWD,mount_tag=repo,security_model=none,readonly=on,multidevs=remap"
  local r=$work/results-arm64-packages
  check "P9 D1 the card a member of nook enqueued is on the glass as nookd rendered it (pixel-exact)" \
    python3 Hardware/vm/compare.py "$r/dump-hello.ppm" "$r/snapshot-hello.png" 1.0
  check "P9 R4 after systemctl reload nook the glass shows the light theme's home" \
    python3 Hardware/vm/compare.py --bright "$r/dump-home-light.ppm" 0.5
}

arm64_main() {
  case "$1" in
    drm|led|gpio|touch|proximity|panel|portrait|compare|packages|all|prepare) ;;
    *) echo "vm: unknown arm64 suite '$1' (drm, gpio, touch, led, proximity, panel, portrait, compare, packages, all, prepare)" >&2; exit 64 ;;
  esac
  arm64_prepare
  case "$1" in
    packages) arm64_packages ;;
    # `all`'s two boots one at a time, each with all its suites (Hardware/dev/test puts them in
    # its VM lanes), then `compare`: the portrait boot's glass against the panel boot's.
    panel) arm64_panel ;;
    portrait) arm64_portrait ;;
    compare) arm64_portrait_checks ;;
    drm) arm64_panel drm-landscape; arm64_portrait drm-portrait; arm64_portrait_checks ;;
    led) arm64_panel led ;;
    gpio|touch|proximity) arm64_portrait "$1" ;;
    # The two boots side by side (one TCG thread each), as the amd64 lanes run.
    all)
      local lane pids=()
      for lane in arm64_panel arm64_portrait; do
        ( passed=0 failed=0 check_out=$work/check-$lane.out; "$lane"; echo "$passed $failed" > "$work/$lane.counts" ) &
        pids+=($!)
      done
      for lane in 0 1; do wait "${pids[$lane]}" || true; done
      for lane in arm64_panel arm64_portrait; do
        if [ -s "$work/$lane.counts" ]; then
          read -r lane_passed lane_failed < "$work/$lane.counts"
          passed=$((passed + lane_passed)) failed=$((failed + lane_failed))
        else
          failed=$((failed + 1)); echo "vm: FAIL $lane ended without its counts"
        fi
        rm -f "$work/$lane.counts"
      done
      arm64_portrait_checks ;;
    prepare) echo "vm: aarch64 guest and binaries ready"; exit 0 ;;
  esac
}
