#!/usr/bin/env bash
# Create .venv (if missing) and install fcocheck with its test extra. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if ! .venv/bin/python -c "import fcocheck.solvers, cvxpy, hypothesis, xdist" >/dev/null 2>&1 \
   || [ pyproject.toml -nt .venv/.fcocheck-installed ] || [ setup.py -nt .venv/.fcocheck-installed ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[test]'
  touch .venv/.fcocheck-installed
fi
