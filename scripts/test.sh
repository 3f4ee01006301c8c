#!/usr/bin/env bash
# Run the quick test profile (default) or the slow one: scripts/test.sh -m slow
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
set +e
.venv/bin/python -m pytest -n 2 -q "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: failing (exit 5 is not success)" >&2
  exit 1
fi
exit "$rc"
