#!/usr/bin/env bash
# Makes the virtual environment of the tavily-python test, unless it is there already.
#
#   bash tests/python/tavily/make-venv.sh target/venv-tavily
set -euo pipefail
VENV="${1:-target/venv-tavily}"
HERE="$(cd "$(dirname "$0")" && pwd)"
if "$VENV/bin/python" -c 'import pytest, tavily' 2>/dev/null; then
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/requirements.txt"
