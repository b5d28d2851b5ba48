#!/usr/bin/env bash
# Makes the virtual environment of the gpt-oss browser test, unless it is there already. The
# gpt-oss package asks for Python 3.12; it installs and imports on 3.11 with pip's
# --ignore-requires-python. fabula-env goes in later, from the wheel CI builds.
#
#   bash tests/python/gpt_oss/make-venv.sh target/venv-gpt-oss
set -euo pipefail
VENV="${1:-target/venv-gpt-oss}"
HERE="$(cd "$(dirname "$0")" && pwd)"
if "$VENV/bin/python" -c 'import pytest, gpt_oss.tools.simple_browser' 2>/dev/null; then
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --ignore-requires-python \
  -r "$HERE/requirements.txt"
