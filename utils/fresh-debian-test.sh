#!/usr/bin/env bash
# Checks that utils/setup.sh is complete: makes a minimal Debian 12 system in a
# folder (debootstrap --variant=minbase: apt, dpkg, bash, coreutils and little
# else), copies the qfx tree into it and runs commands there as a new user on a
# fresh machine would, by default the README's two commands. Inside, only what
# setup.sh installs exists, so anything the build, the tests, the demo or the
# benchmarks use without setup.sh naming it fails there.
#
#   utils/fresh-debian-test.sh                      # ./utils/test.sh, then ./utils/demo.sh
#   utils/fresh-debian-test.sh -- ./utils/test.sh   # any commands, run in the tree
#
# The tree copied is the working tree's tracked and untracked, not ignored,
# files (what a clone would have once they are committed). Needs root (chroot,
# mounts) and debootstrap (`utils/setup.sh --fresh-check` installs it); the
# system is built in $QFX_FRESH_ROOT (default /var/tmp/qfx-fresh-debian, made
# anew each run) and downloads about 1.5 GB of packages from $QFX_DEBIAN_MIRROR
# (default http://deb.debian.org/debian, security updates from
# $QFX_DEBIAN_SECURITY_MIRROR). Exits non-zero when any command fails.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FRESH=${QFX_FRESH_ROOT:-/var/tmp/qfx-fresh-debian}
MIRROR=${QFX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${QFX_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
MARKER=.qfx-fresh-debian

commands=("./utils/test.sh" "./utils/demo.sh")
if [ "${1:-}" = -- ]; then
  shift
  (($#)) || { echo "fresh-debian-test: no command after --" >&2; exit 2; }
  commands=("$@")
elif (($#)); then
  echo "fresh-debian-test: unexpected argument '$1' (usage: $0 [-- COMMAND...])" >&2
  exit 2
fi
[ "$(id -u)" = 0 ] || { echo "fresh-debian-test: needs root (chroot and mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null ||
  { echo "fresh-debian-test: debootstrap is missing: run utils/setup.sh --fresh-check" >&2; exit 2; }

mounts=()
unmount_all() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" || true; done
  mounts=()
}
trap unmount_all EXIT
mount_in() { # mount_in TARGET MOUNT-ARGS...
  local target=$FRESH/$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounts+=("$target")
}

if [ -e "$FRESH" ]; then
  [ -f "$FRESH/$MARKER" ] ||
    { echo "fresh-debian-test: $FRESH exists and was not made by this script; not removing it" >&2; exit 2; }
  grep -q " $FRESH/" /proc/mounts &&
    { echo "fresh-debian-test: something is still mounted under $FRESH" >&2; exit 2; }
  rm -rf "$FRESH"
fi
mkdir -p "$FRESH"
touch "$FRESH/$MARKER"

start=$SECONDS
echo "== debootstrap bookworm (minbase) into $FRESH"
debootstrap --variant=minbase bookworm "$FRESH" "$MIRROR" >"$FRESH.debootstrap.log" 2>&1 ||
  { tail -20 "$FRESH.debootstrap.log" >&2; exit 1; }
cat >"$FRESH/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY bookworm-security main
EOF
cp /etc/resolv.conf "$FRESH/etc/resolv.conf"
echo "   $((SECONDS - start)) s; $(chroot "$FRESH" dpkg-query -W | wc -l) packages"

mount_in proc -t proc proc
mount_in sys -t sysfs sysfs
mount_in dev --bind /dev
mount_in dev/pts --bind /dev/pts
mount_in dev/shm -t tmpfs tmpfs

echo "== copying the tree to /root/qfx"
mkdir -p "$FRESH/root/qfx"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
  tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$FRESH/root/qfx"

status=0
for command in "${commands[@]}"; do
  echo "== $command"
  start=$SECONDS
  chroot "$FRESH" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c 'cd /root/qfx && eval "$1"' bash "$command" || status=$?
  echo "== $command: exit $status after $((SECONDS - start)) s"
done
exit "$status"
