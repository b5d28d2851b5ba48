#!/usr/bin/env bash
# Builds fabula-lwm with its `cuda` feature on a machine without a GPU or a system CUDA toolkit.
#
# nvcc, NVVM, the CUDA runtime headers and CCCL come from NVIDIA's PyPI wheels (default: CUDA
# 13.4, the newest cudarc 0.19 knows; the cu12 nvcc wheels ship ptxas but not the nvcc driver),
# which install as one toolkit tree that candle's build scripts find through CUDA_HOME. Kernels
# are compiled for compute capability 9.0 (H100/H200); the built kernels need a driver that
# supports the chosen CUDA version (580+ for 13.x). Only the library is built:
# linking a binary against it also needs libcuda, cuBLAS, cuRAND and NVRTC, which a GPU machine's
# driver and toolkit provide.
#
# Usage: scripts/cuda-build.sh [cargo args]   (env: CUDA_WHEELS_DIR, CUDA_WHEEL_VERSION,
#                                              CUDA_COMPUTE_CAP, CARGO_TARGET_DIR, CARGO_BUILD_JOBS)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WHEELS="${CUDA_WHEELS_DIR:-$ROOT/target/cuda-wheels}"
VERSION="${CUDA_WHEEL_VERSION:-13.4}"
PYTHON="${PYTHON:-python3}"
# The CUDA 13 wheels install into one toolkit tree: bin/ (nvcc, ptxas), nvvm/, include/, lib/.
TOOLKIT="$WHEELS/nvidia/cu13"

if [ ! -x "$TOOLKIT/bin/nvcc" ]; then
    echo "cuda-build: installing the CUDA $VERSION compiler and headers from PyPI into $WHEELS" >&2
    rm -rf "$WHEELS"
    "$PYTHON" -m pip install --quiet --no-deps --target "$WHEELS" \
        "nvidia-cuda-nvcc==$VERSION.*" \
        "nvidia-cuda-crt==$VERSION.*" \
        "nvidia-nvvm==$VERSION.*" \
        "nvidia-cuda-runtime==$VERSION.*" \
        "nvidia-cuda-cccl<=$VERSION.99"
    chmod +x "$TOOLKIT"/bin/* "$TOOLKIT"/nvvm/bin/* 2>/dev/null || true
    # Build tools look for libraries in lib64/ and for unversioned link names.
    if [ -d "$TOOLKIT/lib" ] && [ ! -e "$TOOLKIT/lib64" ]; then
        ln -s lib "$TOOLKIT/lib64"
    fi
    for lib in "$TOOLKIT"/lib/lib*.so.*; do
        [ -e "$lib" ] || continue
        base="${lib%%.so.*}.so"
        [ -e "$base" ] || ln -s "$(basename "$lib")" "$base"
    done
fi

export CUDA_HOME="$TOOLKIT"
export CUDA_PATH="$TOOLKIT"
export CUDA_ROOT="$TOOLKIT"
export NVCC="$TOOLKIT/bin/nvcc"
export PATH="$TOOLKIT/bin:$PATH"
export CPATH="$TOOLKIT/include${CPATH:+:$CPATH}"
export LIBRARY_PATH="$TOOLKIT/lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
export LD_LIBRARY_PATH="$TOOLKIT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDA_COMPUTE_CAP="${CUDA_COMPUTE_CAP:-90}"
# A separate target folder keeps this long build from holding the workspace's cargo lock.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target/cuda}"

nvcc --version | tail -n 2 >&2
cd "$ROOT"
exec cargo build --release -p fabula-lwm --features cuda "$@"
