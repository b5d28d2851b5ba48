#!/usr/bin/env bash
# The one prepared check to run on a GPU machine: builds fabula with the `cuda` feature, loads a
# checkpoint on the GPU, renders replayed search and extract sessions over a few generated worlds,
# and reports tokens/s and the acceptance rate (`fabula wm bench`), then the same on the CPU for
# comparison. Without a real checkpoint it writes a tiny random one (acceptance is then 0%; only
# the speed and the CUDA path are checked).
#
# Usage: scripts/device-check.sh [MODEL_DIR]
#   env: DEVICE (default cuda), SESSIONS (per world, default 2), WORLDS (default 4),
#        MAX_NEW_TOKENS (default 256), CARGO_TARGET_DIR, CUDA_* as scripts/cuda-build.sh reads them.
# Then the tiny Qwen3.5 dense and MoE checkpoints (`fabula wm tiny --architecture`) continue one
# long prompt with `fabula wm generate` on the device and on the CPU: prefill and decode times
# and whether the greedy ids agree.
# Output: one summary line per run (renders, accepted, tokens/s) followed by the Prometheus
# counters, also written to $OUT/device-check.txt when OUT is set.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DEVICE="${DEVICE:-cuda}"
SESSIONS="${SESSIONS:-2}"
WORLDS="${WORLDS:-4}"
MAX_NEW_TOKENS="${MAX_NEW_TOKENS:-256}"
WORK="$(mktemp -d)"
REPORT="${OUT:-$WORK}/device-check.txt"

# Builds the CLI with the CUDA backend (nvcc from scripts/cuda-build.sh's toolkit when the
# machine has none of its own).
if [ "$DEVICE" = cpu ]; then
    cargo build --release -p fabula
    FABULA="${CARGO_TARGET_DIR:-$ROOT/target}/release/fabula"
else
    # cuda-build.sh installs the toolkit (if needed) and builds the library; the binary is then
    # linked with the same environment against the machine's driver libraries.
    scripts/cuda-build.sh
    TOOLKIT="${CUDA_WHEELS_DIR:-$ROOT/target/cuda-wheels}/nvidia/cu13"
    export CUDA_HOME="$TOOLKIT" CUDA_PATH="$TOOLKIT" CUDA_ROOT="$TOOLKIT" NVCC="$TOOLKIT/bin/nvcc"
    export PATH="$TOOLKIT/bin:$PATH" CPATH="$TOOLKIT/include${CPATH:+:$CPATH}"
    export LIBRARY_PATH="$TOOLKIT/lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
    export LD_LIBRARY_PATH="$TOOLKIT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export CUDA_COMPUTE_CAP="${CUDA_COMPUTE_CAP:-90}"
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target/cuda}"
    cargo build --release -p fabula --features cuda
    FABULA="$CARGO_TARGET_DIR/release/fabula"
fi

"$FABULA" generate --count "$WORLDS" --seed 11 --out "$WORK/worlds" >/dev/null
MODEL="${1:-}"
if [ -z "$MODEL" ]; then
    MODEL="$WORK/tiny"
    "$FABULA" wm tiny --out "$MODEL" --seed 0 --worlds "$WORK/worlds"
fi

{
    echo "== $DEVICE, model $MODEL"
    "$FABULA" wm bench --worlds "$WORK/worlds" --model "$MODEL" --device "$DEVICE" \
        --max-worlds "$WORLDS" --sessions-per-world "$SESSIONS" --max-new-tokens "$MAX_NEW_TOKENS"
    if [ "$DEVICE" != cpu ]; then
        echo "== cpu, model $MODEL (1 world, for comparison)"
        "$FABULA" wm bench --worlds "$WORK/worlds" --model "$MODEL" --device cpu \
            --max-worlds 1 --sessions-per-world 1 --max-new-tokens "$MAX_NEW_TOKENS"
    fi
    # One observation by hand, as an agent would see it.
    WORLD="$WORK/worlds/world-00000.sqlite"
    echo "== fabula render (lwm, $DEVICE)"
    "$FABULA" render --world "$WORLD" --search "history" --renderer lwm --model "$MODEL" \
        --device "$DEVICE" --max-new-tokens "$MAX_NEW_TOKENS" 2>&1 | tail -n 20
} 2>&1 | tee "$REPORT"

# Qwen3.5 (Gated DeltaNet, gated attention, MoE): a long prompt (several 64-token chunks of the
# chunked delta rule) prefilled and continued greedily, on the device and on the CPU.
PROMPT="$(for i in $(seq 1 40); do printf 'Entry %s: the river town was founded by a guild of net-makers. ' "$i"; done)"
for arch in qwen3.5 qwen3.5-moe; do
    "$FABULA" wm tiny --out "$WORK/$arch" --architecture "$arch" --seed 0 --worlds "$WORK/worlds" 2>/dev/null
    for device in "$DEVICE" cpu; do
        echo "== fabula wm generate ($arch, $device; prompt_ids omitted)"
        "$FABULA" wm generate --model "$WORK/$arch" --device "$device" --prompt "$PROMPT" \
            --max-new-tokens 128 | sed -e 's/"prompt_ids":\[[0-9,]*\],//' -e 's/"text":"[^"]*",//'
    done
done 2>&1 | tee -a "$REPORT"
