#!/usr/bin/env bash
# Set up, then lint, type-check and run the test suite.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
.venv/bin/ruff check evidence tests trainers bench dodo.py
.venv/bin/mypy
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
