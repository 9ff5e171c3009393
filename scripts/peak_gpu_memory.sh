#!/usr/bin/env bash
# Runs a command while sampling every GPU's used memory (nvidia-smi, every 0.2 s) and prints
# each GPU's peak over the run after it ends; returns the command's exit code.
#   scripts/peak_gpu_memory.sh COMMAND [ARGS...]
# The figure is what nvidia-smi counts as used on the device: every process's allocations
# and CUDA contexts (about 0.5 GB a process), so run nothing else on the GPUs meanwhile.
set -uo pipefail
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 200 >"$samples" &
sampler=$!
"$@"
rc=$?
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
awk -F', *' '{ if ($2 > peak[$1]) peak[$1] = $2 } END { for (g in peak) printf "gpu %s peak used %d MiB\n", g, peak[g] }' "$samples" | sort
exit $rc
