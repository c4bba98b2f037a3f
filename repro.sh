#!/usr/bin/env bash
# One command from a clean clone: an isolated environment with the exact pinned dependencies
# (requirements.lock, with hashes), then every run retrained into a fresh store, figures,
# tables and the paper rebuilt, and everything compared with the committed evidence.
#   ./repro.sh                    full reproduction (exit 0: the paper reproduces)
#   ./repro.sh --presentation     reuse the committed runs that pass fsck; rebuild the rest
#   ./repro.sh --experiment NAME  retrain one experiment
#   ./repro.sh --claim ID         retrain the runs of one claim
set -euo pipefail
cd "$(dirname "$0")"
VENV=.repro-venv bash scripts/setup.sh
exec .repro-venv/bin/evidence repro "$@"
