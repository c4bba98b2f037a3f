#!/usr/bin/env bash
# Set up, then build the bundled example end to end: train every run that is not sealed yet.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
.venv/bin/doit train
