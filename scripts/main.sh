#!/usr/bin/env bash
# The main job: the quick rate-comparison report on the embedded defaults (the papers' synthetic
# instances), no server needed.  Runs every theorem experiment, the conformance checks and the paper
# reproductions (or reuses them from out/fcocheck.sqlite), and writes out/report/index.html (self-
# contained), out/report/report.md and the figures as PNG and SVG.  Extra arguments go to
# `fcocheck report` (e.g. --full, --dask-local 2, --out DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/fcocheck report --quick --out out/report "$@"
