#!/usr/bin/env bash
# The chroot check of scripts/debian_chroot_check.sh on Debian sid: see there for options.
exec bash "$(dirname "$0")/debian_chroot_check.sh" --suite sid "$@"
