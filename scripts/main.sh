#!/usr/bin/env bash
# The main job on the embedded default (lasso-paper): its certified reference optimum, then
# FedDualAvg and FedMiD at the FCO §5.1 tuned steps (η doubled for the ½ loss normalisation),
# 100 rounds of K = 10 minibatch-10 steps, traces written to out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p out
.venv/bin/fcocheck solve lasso-paper --out out/lasso-paper.json
common=(--problem lasso-paper --rounds 100 --local-steps 10 --oracle minibatch:10 --seed 0)
.venv/bin/fcocheck run feddualavg "${common[@]}" --eta-c 0.02 --eta-s 1 --out out/feddualavg.npz "$@"
.venv/bin/fcocheck run fedmid "${common[@]}" --eta-c 0.002 --eta-s 0.3 --out out/fedmid.npz "$@"
