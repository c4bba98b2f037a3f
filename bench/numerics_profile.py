"""The cost of the portable numerics profile against native, on the bundled example's models.

    python bench/numerics_profile.py [--seeds 3] [--out bench/results.md]

Copies the example's trainers and its digits experiment (MLP, wide MLP, CNN; the committed
configs) into two projects under ``bench/.work-numerics/`` that differ only in
``numerics = "portable"`` or ``"native"``, and trains them seed by seed, interleaved (portable
seed 0, native seed 0, portable seed 1, ...), each run in its own ``doit train`` process, as a
user would. Reports, per model and profile, the median of the runs' own training time (the
``wall_seconds`` their provenance records: the loop, the smoke check and verify-by-load) and
the ratio portable / native. Updates the ``numerics`` section of bench/results.md.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common

PROFILES = ("portable", "native")


def project(root: Path, profile: str, seed: int) -> Path:
    folder = root / f"{profile}-s{seed}"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(common.REPO / "trainers", folder / "trainers",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("dodo.py", "presets.toml"):
        if (common.REPO / name).is_file():
            shutil.copy(common.REPO / name, folder / name)
    text = (common.REPO / "experiments" / "digits.toml").read_text("utf-8")
    text = re.sub(r"(?m)^seeds = .*$", f"seeds = [{seed}]", text, count=1)
    text = re.sub(r'(?m)^numerics = .*\n', "", text)
    (folder / "experiments").mkdir()
    (folder / "experiments" / "digits.toml").write_text(f'numerics = "{profile}"\n' + text, "utf-8")
    return folder


def train(folder: Path, engine_env: dict[str, str]) -> tuple[float, dict[str, float]]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "doit", "train"], cwd=folder, capture_output=True,
                          text=True, env={**engine_env, "EVIDENCE_PROGRESS": "off"})
    whole = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{folder.name}: doit train failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    own = {}
    for run in (folder / "runs").iterdir():
        spec = json.loads((run / "spec.json").read_text())
        own[spec["group"]] = json.loads((run / "provenance.json").read_text())["wall_seconds"]
    return whole, own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=common.BENCH / ".work-numerics")
    parser.add_argument("--out", type=Path, default=common.RESULTS)
    args = parser.parse_args()
    engine = common.snapshot_engine(args.workdir)
    env = common.engine_env(engine)
    own: dict[tuple[str, str], list[float]] = {}
    for seed in range(args.seeds):
        for profile in PROFILES:
            _, runs = train(project(args.workdir, profile, seed), env)
            for group, seconds in runs.items():
                own.setdefault((group, profile), []).append(seconds)
    groups = sorted({g for g, _ in own})
    lines = ["## Numerics profiles: portable vs native", "",
             common.produced_by(None) + f" Each model of experiments/digits.toml, {args.seeds} seeds per "
             "profile, trained interleaved, one `doit train` process per seed; the time is the run's own "
             "(`wall_seconds` in its provenance: smoke check, training loop, verify by load).", "",
             "| model | portable median s | native median s | portable / native | runs |",
             "|---|---:|---:|---:|---:|"]
    for group in groups:
        p, n = statistics.median(own[group, "portable"]), statistics.median(own[group, "native"])
        lines.append(f"| {group} | {p:.3f} | {n:.3f} | {p / n:.2f}× | {len(own[group, 'portable'])} |")
    print("\n".join(lines))
    common.update_section("numerics", "\n".join(lines), args.out)


if __name__ == "__main__":
    main()
