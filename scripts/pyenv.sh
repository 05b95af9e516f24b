#!/usr/bin/env bash
# Creates (or refreshes) the project-local virtual environment .venv with the
# pinned Python test and benchmark dependencies of requirements.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
venv="$here/.venv"
req="$here/requirements.txt"
stamp="$venv/.requirements.sha"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
python=/usr/bin/python3
[ -x "$python" ] || python=python3
echo "pyenv: installing the pinned test dependencies of requirements.txt into .venv (the first time takes a few minutes)" >&2
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
echo "$want" > "$stamp"
