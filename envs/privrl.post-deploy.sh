#!/usr/bin/env bash
# Run by Snakemake once, inside the new conda env (see envs/privrl.yaml): the pinned
# dependencies, then privrl itself (editable: the env follows the checkout's code).
set -euo pipefail
src="${PRIVRL_SOURCE:?PRIVRL_SOURCE must name the privrl checkout (the Snakefile sets it)}"
python -m pip install --quiet -r "$src/requirements-lock.txt"
python -m pip install --quiet --no-deps -e "$src"
