#!/usr/bin/env bash
# Builds fabula-env's wheel: the Python package, fabula-score compiled in through PyO3 (abi3, one
# wheel for CPython 3.10 and later), and the `fabula` binary, which pip installs on PATH beside
# the venv's python (as ruff and uv ship theirs). A machine that installs the wheel needs no Rust.
#
#   bash scripts/build-wheel.sh                        # cargo build --release -p fabula, then the wheel
#   bash scripts/build-wheel.sh --binary target/debug/fabula --out target/wheels
#   bash scripts/build-wheel.sh --binary target/debug/fabula --profile dev   # CI: no release build
#
# The wheel is tagged manylinux_2_N for the newest glibc symbol version the binary and the
# extension module need (read with objdump), so pip refuses it where it would not run.
#
# The matrix a release workflow runs (stated, not run here: this machine is x86-64 Linux only):
#   x86_64-unknown-linux-gnu   this script, in a manylinux_2_28 container for older glibc
#   aarch64-unknown-linux-gnu  the same on an arm64 runner
#   x86_64/aarch64-apple-darwin  `cargo build --release -p fabula --target ...` then
#                                `maturin build --release --target ...` on a macOS runner
set -euo pipefail
cd "$(dirname "$0")/.."

BINARY=""
OUT=target/wheels
PROFILE=release
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) BINARY="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --profile) PROFILE="$2"; shift 2 ;;
    *) echo "usage: $0 [--binary PATH] [--out DIR] [--profile release|dev]" >&2; exit 2 ;;
  esac
done
if [ -z "$BINARY" ]; then
  cargo build --release -p fabula
  BINARY=target/release/fabula
fi

# maturin from PyPI, pinned, in a venv that later runs reuse.
MATURIN_VENV=target/maturin-venv
if ! "$MATURIN_VENV/bin/maturin" --version 2>/dev/null | grep -qx 'maturin 1.16.0'; then
  python3 -m venv "$MATURIN_VENV"
  "$MATURIN_VENV/bin/pip" install --quiet --disable-pip-version-check maturin==1.16.0
fi

DATA=python/fabula-env/wheel-data
rm -rf "$DATA"
mkdir -p "$DATA/scripts"
cp "$BINARY" "$DATA/scripts/fabula"
strip "$DATA/scripts/fabula"

glibc=$(objdump -T "$DATA/scripts/fabula" | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2 -n -u | tail -1)
minor=${glibc#GLIBC_2.}
# The extension module needs far less than the binary; manylinux2014 (2.17) is maturin's floor.
[ "$minor" -ge 17 ] || minor=17
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
(cd python/fabula-env &&
  "../../$MATURIN_VENV/bin/maturin" build --profile "$PROFILE" --compatibility "manylinux_2_$minor" \
    --out "$OUT")
ls -la "$OUT"/fabula_env-*.whl
