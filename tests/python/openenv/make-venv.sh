#!/usr/bin/env bash
# Makes the virtual environment of the OpenEnv client test, unless it is there already:
# openenv-core without its own dependencies (gradio, openai and a CLI its client never uses), then
# exactly what importing its client needs (requirements.txt).
#
#   bash tests/python/openenv/make-venv.sh target/venv-openenv
set -euo pipefail
VENV="${1:-target/venv-openenv}"
HERE="$(cd "$(dirname "$0")" && pwd)"
if "$VENV/bin/python" -c 'import pytest, openenv' 2>/dev/null; then
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps openenv-core==0.3.0
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/requirements.txt"
