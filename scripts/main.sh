#!/usr/bin/env bash
# The main job on the embedded default: a certified reference optimum of lasso-paper.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p out
.venv/bin/fcocheck solve lasso-paper --out out/lasso-paper.json "$@"
