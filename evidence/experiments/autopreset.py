"""``preset = "auto"``'s isolated half: choose a preset in a child process, print it as JSON.

Why a module of its own: the parent (:func:`evidence.experiments.presets.choose_isolated`) runs
while doit builds its task list and must not import the user's trainer or torch; this child
does both, under a time limit the parent enforces. It imports :mod:`evidence.experiments.spec`
(to expand the experiment's run configurations), which itself imports the presets module, so
it cannot live there without an import loop.
"""

from __future__ import annotations

import json
from pathlib import Path

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.experiments.presets import PRESETS_FILE, choose, load_table


def main(argv: list[str] | None = None) -> int:
    """``python -m evidence.experiments.autopreset --project P --experiment E [--device D]``."""
    import argparse
    import sys

    from evidence.core.errors import EvidenceError
    from evidence.experiments.spec import _preset_runs, load_experiment

    parser = argparse.ArgumentParser(prog="python -m evidence.experiments.autopreset")
    parser.add_argument("--project", required=True)
    parser.add_argument("--experiment", required=True)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    project = Project.at(args.project)
    path = Path(args.experiment)
    try:
        raw = load_experiment(path)
        table = load_table(project)
        if table is None:
            raise BadInputError(path, f"preset = 'auto' but the project has no {PRESETS_FILE}")
        choice = choose(table, _preset_runs(project, raw, path), project, args.device)
    except EvidenceError as error:
        print(error.format(), file=sys.stderr)
        return 3
    except (ValueError, TypeError, KeyError, RuntimeError, AttributeError, MemoryError) as error:
        first = str(error).splitlines()[0] if str(error) else ""
        print(f"the trainer's build() raised {type(error).__name__}: {first}", file=sys.stderr)
        return 3
    print(json.dumps(choice, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
