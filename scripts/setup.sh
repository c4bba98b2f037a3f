#!/usr/bin/env bash
# Create (or reuse) the project's virtual environment and install exactly what
# requirements.lock pins (versions and hashes; torch is the CPU build, so pip never pulls a
# multi-GB CUDA build), then the engine itself in editable mode. Idempotent: a second call
# with an unchanged lock and pyproject installs nothing.
#   VENV=path     use another environment folder (repro.sh uses an isolated one)
#   PYTHON=path   the interpreter to make it from (default python3.11, else python3)
# Supported: CPython 3.11, every 3.11.x (requirements.lock pins CPython 3.11 wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
needs_311() {  # one clear line, not a pip error about hashes, when the interpreter is not a 3.11
  local found
  found="$("$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || echo "not found")"
  case "$found" in
    3.11.*) ;;
    *) echo "ERROR: evidence needs CPython 3.11 (any 3.11.x); $1 is $found: $2" >&2
       exit 3 ;;
  esac
}
if [ ! -x "$VENV/bin/python" ]; then
  needs_311 "$PYTHON" "set PYTHON=/path/to/python3.11"
  "$PYTHON" -m venv "$VENV"
fi
needs_311 "$VENV/bin/python" "delete $VENV and run again with PYTHON=/path/to/python3.11"
stamp="$VENV/.evidence-setup"
want="$(cat pyproject.toml requirements.lock scripts/setup.sh | sha256sum | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
quiet_pip() {  # pip's exit code, without the machine's noisy warnings about missing mirrors
  "$VENV/bin/python" -m pip "$@" --quiet --disable-pip-version-check \
    2> >(grep -v -e "^WARNING: Location" -e "BuildBackendWarning" >&2)
}
quiet_pip install --require-hashes --no-deps -r requirements.lock
quiet_pip install --no-deps -e .
"$VENV/bin/python" -c "import evidence, torch, doit" # fail loudly if the install did not work
echo "$want" > "$stamp"
