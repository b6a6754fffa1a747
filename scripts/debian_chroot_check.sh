#!/usr/bin/env bash
# Repeats the set-up a new user gets on a Debian release in a chroot built with debootstrap, and runs the
# README's commands there from a fresh clone: Debian 13 (trixie: QGIS 3.40, Python 3.13, numpy 2) or sid
# (unstable, December 2026: QGIS 3.44, Python 3.14, numpy 2). Not part of `make test`.
#
#   sudo scripts/debian_chroot_check.sh [--suite SUITE] [--root DIR] [--fresh] [TARGET...]
#   sudo scripts/debian13_check.sh ...      (the same with --suite trixie)
#   sudo scripts/debian_sid_check.sh ...    (the same with --suite sid)
#
#   --suite S    the Debian suite to debootstrap (default trixie; sid, bookworm, ...)
#   --root DIR   where the root lives (default /var/tmp/stormwater-SUITE, trixie's /var/tmp/stormwater-deb13);
#                reused if it exists
#   --fresh      delete DIR first and build it again with debootstrap
#   TARGET...    make targets to run, in order (default: demo test lint; add test-matrix for the matrix)
#
# Environment: MIRROR (default: the first Debian archive URI of this machine's /etc/apt/sources.list*),
# SUITE (the default of --suite), SHARED (default ../shared beside this repo: realdata and the regulation texts).
# A proxy and pip's CA bundle (PIP_CERT or pip.conf's cert) are passed into the root; nothing else of this
# machine's pip configuration is.
#
# What it does: debootstrap (minbase) from the mirror; apt-get install python3-qgis qgis-providers python3-venv
# make git xvfb (with Recommends, as a new user gets them); a fresh `git clone` of this repo's current branch
# (committed work only) to /srv/check/project in the root and a copy of SHARED beside it as /srv/check/shared;
# then, as root inside the chroot, each `make TARGET` (the Makefile installs the rest through
# scripts/install_system_deps.sh), printing its time. /proc, /sys, /dev and /dev/pts are bind-mounted for the
# run and unmounted at the end. Exit status: 0 if every target passed, 1 otherwise.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
ROOT=""
SUITE="${SUITE:-trixie}"
FRESH=0
TARGETS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --suite) SUITE="$2"; shift 2 ;;
    --root) ROOT="$2"; shift 2 ;;
    --fresh) FRESH=1; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(demo test lint)
case "$SUITE" in
  trixie) ROOT="${ROOT:-/var/tmp/stormwater-deb13}" ;;
  *) ROOT="${ROOT:-/var/tmp/stormwater-$SUITE}" ;;
esac
SHARED="${SHARED:-$REPO/../shared}"

if [[ "$(id -u)" -ne 0 ]]; then
  echo "error: debootstrap and chroot need root; run: sudo $0 $*" >&2
  exit 2
fi

# The Debian archive this machine is configured with (deb822 .sources or one-line .list), never a fixed host.
configured_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    awk 'BEGIN{RS=""; FS="\n"} {uri=""; sec=0; for (i=1;i<=NF;i++) {
           if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); uri=a[2] }
           if ($i ~ /^Suites:/ && $i ~ /-security/) sec=1 }
         if (uri ~ /\/debian\/?$/ && !sec) { print uri; exit } }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    sed -E 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" && $2 ~ /\/debian\/?$/ && $3 !~ /-security/ {print $2}'
  done
}
MIRROR="${MIRROR:-$(configured_mirror | head -n 1)}"
if [[ -z "$MIRROR" ]]; then
  echo "error: no Debian archive found in /etc/apt/sources.list*; set MIRROR=http://.../debian" >&2
  exit 2
fi

stamp() { date +%s; }
took() { echo "$(( $(stamp) - $1 )) s"; }
T_ALL=$(stamp)

command -v debootstrap >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }

MOUNTS=(proc sys dev dev/pts)
unmount_all() {
  local i
  for (( i=${#MOUNTS[@]}-1; i>=0; i-- )); do
    if mountpoint -q "$ROOT/${MOUNTS[$i]}"; then
      umount "$ROOT/${MOUNTS[$i]}" 2>/dev/null || umount -l "$ROOT/${MOUNTS[$i]}"
    fi
  done
}
trap unmount_all EXIT

if [[ $FRESH -eq 1 && -d "$ROOT" ]]; then
  unmount_all
  echo "== removing $ROOT"
  rm -rf --one-file-system "$ROOT"
fi
if [[ ! -f "$ROOT/etc/debian_version" ]]; then
  echo "== debootstrap $SUITE from $MIRROR into $ROOT"
  t=$(stamp)
  mkdir -p "$ROOT"
  debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$ROOT" "$MIRROR" > "$ROOT.debootstrap.log" 2>&1 \
    || { tail -n 20 "$ROOT.debootstrap.log" >&2; exit 1; }
  echo "   debootstrap: $(took "$t")"
else
  echo "== reusing $ROOT (Debian $(cat "$ROOT/etc/debian_version")); --fresh builds it again"
fi

for m in "${MOUNTS[@]}"; do
  mountpoint -q "$ROOT/$m" || mount --bind "/$m" "$ROOT/$m"
done
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
# sid's and testing's InRelease carry a Valid-Until a week ahead; a mirror that serves a dated copy of the archive
# serves it past that date, and apt then refuses the whole suite ("Release file ... is expired").
echo 'Acquire::Check-Valid-Until "false";' > "$ROOT/etc/apt/apt.conf.d/99stormwater-check"

# The network settings pip needs on this machine go into the root too: a proxy, and the CA bundle named by
# PIP_CERT (or pip.conf's `cert`) when this machine trusts a CA the root's ca-certificates does not have.
PASS_ENV=()
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY PIP_INDEX_URL PIP_DEFAULT_TIMEOUT; do
  [[ -n "${!v:-}" ]] && PASS_ENV+=("$v=${!v}")
done
host_cert="${PIP_CERT:-$(python3 -m pip config get global.cert 2>/dev/null || true)}"
if [[ -n "$host_cert" && -f "$host_cert" ]]; then
  cp -L "$host_cert" "$ROOT/etc/ssl/certs/host-ca-bundle.crt"
  PASS_ENV+=(PIP_CERT=/etc/ssl/certs/host-ca-bundle.crt)
fi

in_root() {
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "${PASS_ENV[@]}" "$@"
}

echo "== apt-get install python3-qgis qgis-providers python3-venv make git xvfb"
t=$(stamp)
in_root bash -c 'apt-get update -qq && apt-get install -y -qq python3-qgis qgis-providers python3-venv make git xvfb >/dev/null'
echo "   apt-get: $(took "$t"); $(in_root dpkg-query -W -f='${Package} ${Version}\n' python3-qgis python3 python3-numpy | tr '\n' ' ')"

echo "== fresh clone of $REPO ($(git -C "$REPO" rev-parse --abbrev-ref HEAD) at $(git -C "$REPO" rev-parse --short HEAD)) and $SHARED"
rm -rf --one-file-system "$ROOT/srv/check"
mkdir -p "$ROOT/srv/check"
git clone -q --no-hardlinks --branch "$(git -C "$REPO" rev-parse --abbrev-ref HEAD)" "file://$REPO" "$ROOT/srv/check/project"
if [[ -d "$SHARED" ]]; then
  cp -a "$(cd "$SHARED" && pwd)" "$ROOT/srv/check/shared"
else
  echo "   (no $SHARED: the tests that read ../shared are skipped)"
fi

declare -A RESULT
failed=0
for target in "${TARGETS[@]}"; do
  echo "== make $target (Debian $(cat "$ROOT/etc/debian_version"), in the chroot as root)"
  t=$(stamp)
  if in_root bash -c "cd /srv/check/project && make $target"; then
    RESULT[$target]="passed in $(took "$t")"
  else
    RESULT[$target]="FAILED after $(took "$t")"
    failed=1
  fi
  echo "   make $target: ${RESULT[$target]}"
done
if in_root test -x /srv/check/project/.venv/bin/python; then
  # shellcheck disable=SC2016
  echo "== venv: $(in_root /srv/check/project/.venv/bin/python -c 'import sys, numpy, shapely; print(f"Python {sys.version.split()[0]}, numpy {numpy.__version__} ({numpy.__file__}), shapely {shapely.__version__} (GEOS {shapely.geos_version_string}, {shapely.__file__})")')"
fi
echo "== summary (Debian $(cat "$ROOT/etc/debian_version"), total $(took "$T_ALL"))"
for target in "${TARGETS[@]}"; do
  echo "   make $target: ${RESULT[$target]}"
done
exit $failed
