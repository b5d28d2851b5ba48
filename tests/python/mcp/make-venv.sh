#!/usr/bin/env bash
# Makes the virtual environment of the MCP SDK test, unless it is there already.
#
#   bash tests/python/mcp/make-venv.sh target/venv-mcp
set -euo pipefail
VENV="${1:-target/venv-mcp}"
HERE="$(cd "$(dirname "$0")" && pwd)"
if "$VENV/bin/python" -c 'import pytest, mcp' 2>/dev/null; then
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/requirements.txt"
