#!/usr/bin/env bash
# The one place that names quiver's system dependencies (docs/ARCHITECTURE.md, decision 1).
# Installs the Debian packages that are missing; does nothing when all are there.
# Usage: scripts/deps.sh [--dev]   (--dev adds the sanitizer/fuzzing toolchain)
set -euo pipefail

# tzdata: Cypher's named time zones read the system tz database (src/graph/cypher_temporal.c).
packages=(
  build-essential cmake ninja-build pkg-config
  libzstd-dev liblz4-dev libroaring-dev libpcre2-dev libutf8proc-dev
  libxxhash-dev libcmocka-dev clang-format
  tzdata
  python3 python3-venv python3-dev
)
if [ "${1:-}" = "--dev" ]; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
