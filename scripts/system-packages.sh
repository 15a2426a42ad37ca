#!/usr/bin/env bash
# Make sure the programs the book needs from Debian are on PATH.
#
#   scripts/system-packages.sh COMMAND:PACKAGE [COMMAND:PACKAGE ...]
#
# Installs the packages whose command is missing with apt-get when running as root;
# otherwise stops and names the packages to install. Does nothing when all are present,
# so it is cheap to run before every build.
set -euo pipefail

missing=()
for pair in "$@"; do
  cmd=${pair%%:*}
  pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "error: missing system packages: ${missing[*]}" >&2
  echo "install them, then run make again:  sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: missing system packages: ${missing[*]} (and no apt-get to install them)" >&2
  exit 1
fi
echo "installing system packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
