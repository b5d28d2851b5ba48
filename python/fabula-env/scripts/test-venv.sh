#!/usr/bin/env bash
# Makes (or refreshes) the virtual environment the fabula-env tests run in: verl 0.9.1's code
# with the pinned libraries its dataset loader and tool registry import (torch from PyPI, the
# CUDA build: PyPI has no CPU-only torch for x86_64 Linux; about 6 GB and 4 minutes the first
# time), verl 0.7.1's `search_r1_like_utils.py`, and, when a wheel is given, this package from
# it (scripts/build-wheel.sh builds it). Later runs reuse the environment and only reinstall the
# package (seconds).
#
#   bash scripts/build-wheel.sh --binary target/debug/fabula
#   bash python/fabula-env/scripts/test-venv.sh target/verl-venv target/wheels/fabula_env-*.whl
#   FABULA_BIN=target/debug/fabula target/verl-venv/bin/python -m pytest -q -p no:cacheprovider python/fabula-env/tests
set -euo pipefail
VENV="${1:-target/verl-venv}"
WHEEL="${2:-}"
STAMP="verl-0.9.1+torch-2.15.0+3"

if [ "$(cat "$VENV/fabula-env-stamp" 2>/dev/null)" != "$STAMP" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  # The last line's pins are transformers' `serving` extra and requests (the `transformers` CLI
  # imports it), for `transformers serve` in tests/python/remote_engine.
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    torch==2.15.0 tensordict==0.10.0 transformers==5.10.4 tokenizers==0.22.2 datasets==5.2.0 \
    omegaconf==2.4.0 pillow==13.0.0 ray==2.60.0 pydantic==2.14.4 pyarrow==26.0.1 \
    pandas==3.1.1 numpy==2.4.6 httpx==0.28.1 pyyaml==6.0.4 pytest==9.2.0 \
    cachetools==8.0.2 uvicorn==0.55.0 fastapi==0.165.0 \
    openai==3.63.0 accelerate==1.16.0 starlette==1.10.0 rich==15.0.0 requests==2.34.2
  # torch pulls in triton (1 GB) for compiling kernels, which nothing here does; CI's disk is
  # tight, so it goes (`import torch` and verl's modules do not need it).
  "$VENV/bin/pip" uninstall --quiet --disable-pip-version-check -y triton
  # verl's own requirements (vllm-free, but wandb, peft, accelerate, ...) are not needed by
  # the modules the tests import, so verl goes in without them.
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps verl==0.9.1
  # verl 0.7.1's Search-R1 client, the one module the tests run from that release.
  mkdir -p "$VENV/verl071"
  "$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps verl==0.7.1 -d "$VENV/verl071"
  "$VENV/bin/python" - "$VENV/verl071" <<'PY'
import pathlib, sys, zipfile
folder = pathlib.Path(sys.argv[1])
wheel = folder / "verl-0.7.1-py3-none-any.whl"
with zipfile.ZipFile(wheel) as whl:
    source = whl.read("verl/tools/utils/search_r1_like_utils.py")
(folder / "search_r1_like_utils.py").write_bytes(source)
wheel.unlink()
PY
  echo "$STAMP" > "$VENV/fabula-env-stamp"
fi
if [ -n "$WHEEL" ]; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall "$WHEEL"
fi
