#!/usr/bin/env bash
# Set up, then lint, type-check and run the test suite.
#   VENV=path PYTHON=python3.11  another environment made from another interpreter (CI runs the
#   fast path again under the machine's oldest Python 3.11 that way; see .ci/run)
set -euo pipefail
cd "$(dirname "$0")"
export VENV="${VENV:-.venv}"
bash scripts/setup.sh
"$VENV/bin/ruff" check evidence tests trainers bench dodo.py
"$VENV/bin/mypy"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
