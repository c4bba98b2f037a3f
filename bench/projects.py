"""Synthetic projects of one shape for every build tool the harness compares.

The shape, for a size N (a multiple of ten, at least 20):

* N **train** tasks, each reading one config and producing one run's results;
* N/10 **figure** tasks, each reading the results of ten runs (beyond N=10,000: 1,000 figures of
  N/1,000 runs each, so that a larger N grows the runs and not the renders: at N=100,000 a full
  build would otherwise spend about 35 minutes on 10,000 renders);
* one **deliver** task reading every figure.

Each tool gets its own folder with its own idiom for that graph:

* ``evidence``: a real project (``dodo.py`` like the bundled one, ``trainers/model.py``,
  ``experiments/bench.toml`` whose grid expands to N runs, N/10 ``figures/<name>/figure.toml``
  selecting ten runs each by a filter, ``comparisons.toml``, ``EVIDENCE.json`` with two
  claims, a paper template). Its runs are **not trained**: the harness writes each run's
  ``spec.json``, ``results.json``, ``metrics.jsonl``, a small ``model.safetensors`` and
  ``provenance.json`` into a staging folder and publishes it with the engine's own
  :meth:`evidence.store.runs.RunStore.seal`, under exactly the run keys the experiment expands to.
  So a measurement of this project measures the build system, not training.
* ``doit``: plain doit with the same task graph (``file_dep``/``targets``), the floor.
* ``snakemake``: a Snakefile with the same three rules.
* ``dvc``: a ``dvc.yaml`` with N + N/10 + 1 stages.

For the peers a "train" is a trivial command (``cp``), a figure ``cat``s ten results and the
deliver step ``cat``s the figures; plain doit runs the same file operations as Python actions.

The incremental measurement changes one input: for the peers one run's config file (its
content toggles between two versions); for evidence one value of the experiment's grid
(the last point, N-1, toggles with N), which changes exactly one run key. The run of the
other key is sealed up front too, so both states have all their runs.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

#: Bumped when the generated files change, so a cached project of an older shape is rebuilt.
GENERATOR_VERSION = 4
EXPERIMENT = "bench"
RUNS_PER_FIGURE = 10
#: Beyond N = 10 x FIGURES_CAP the number of figures stays at FIGURES_CAP (each reads more runs).
FIGURES_CAP = 1000


def runs_per_figure(n: int) -> int:
    return RUNS_PER_FIGURE if n <= RUNS_PER_FIGURE * FIGURES_CAP else n // FIGURES_CAP


def check_size(n: int) -> None:
    step = runs_per_figure(n) if n > RUNS_PER_FIGURE * FIGURES_CAP else RUNS_PER_FIGURE
    if n < 20 or n % step or (n > RUNS_PER_FIGURE * FIGURES_CAP and n % FIGURES_CAP):
        raise SystemExit(f"size {n}: N must be a multiple of {RUNS_PER_FIGURE} (beyond "
                         f"{RUNS_PER_FIGURE * FIGURES_CAP:,}: of {FIGURES_CAP}) and at least 20")


def figure_blocks(n: int) -> list[list[int]]:
    """Grid points each figure reads: ten consecutive points (beyond N=10,000: N/1,000; the last
    block also lists the alternative value N of the incremental change, so it reads the same
    number of runs in both states)."""
    per = runs_per_figure(n)
    blocks = [list(range(j, j + per)) for j in range(0, n, per)]
    blocks[-1].append(n)
    return blocks


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def replace_text(path: Path, text: str) -> None:
    """Replace a file's content in one rename (a tool never sees half a file)."""
    tmp = path.with_name(f".{path.name}.bench-tmp")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, path)


def remove(paths: Iterable[Path]) -> None:
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


# --------------------------------------------------------------------------- evidence

TRAINER = '''"""Benchmark trainer: a linear classifier.

The benchmark never runs it: bench/harness.py seals the runs of this project directly through
the engine's store API (the build system is measured, not training). It exists because a run
key includes the digest of its trainer's source.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from evidence.numerics.recipe import DataInfo, Recipe


def build(config: dict[str, Any], data: DataInfo) -> Recipe:
    model = nn.Linear(data.n_features, data.n_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=float(config["lr"]))
    return Recipe(model=model, optimizer=optimizer, epochs=int(config["epochs"]),
                  batch_size=int(config["batch_size"]))
'''

PAPER = """# {{ title }}

*A synthetic project of the build-system benchmark: its runs were sealed by the harness through
the engine's store API, not trained; the numbers below are fabricated test data.*

{{ statement("first_beats_second") }}

{{ statement("first_accuracy") }}

{{ figure("b00000") }}

{{ figure("b00001") }}

Disclosures: {{ disclosure_summary() }}.
"""


def _ints(values: Iterable[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def experiment_toml(points: list[int]) -> str:
    return f"""# Synthetic benchmark experiment: one run per grid point. The runs are sealed by
# bench/harness.py through the engine's store API; nothing here is ever trained.
description = "Build-system benchmark: {len(points)} runs, one per grid point"
trainer = "model"
seeds = [0]

[data]
dataset = "digits"
split_seed = 0
fractions = {{ train = 0.6, val = 0.2, test = 0.2 }}

[config]
epochs = 1
batch_size = 64
lr = 0.1

[checkpoint]
every_seconds = 30
keep = 1

[grid]
point = {_ints(points)}
"""


def figure_toml(index: int, block: list[int]) -> str:
    return f"""# Ten runs of the benchmark experiment, selected by a filter on the grid value.
kind = "points"
caption = "Benchmark block {index}: test accuracy of ten runs"
metric = "accuracy"
split = "test"
spread = "sd"
formats = ["png"]
ylabel = "test accuracy"

[[select]]
experiment = "{EXPERIMENT}"
series = "block"
where = {{ point = {_ints(block)} }}
"""


def comparisons_toml(blocks: list[list[int]]) -> str:
    first, second = _ints(blocks[0]), _ints(blocks[1])
    return f"""schema_version = 1

[[comparison]]
id = "first_vs_second"
description = "Block 0 beats block 1 on test accuracy"
a = {{ experiment = "{EXPERIMENT}", where = {{ point = {first} }} }}
b = {{ experiment = "{EXPERIMENT}", where = {{ point = {second} }} }}
metric = "accuracy"
split = "test"
claimed = "a_better"

[[aggregate]]
id = "first_accuracy"
description = "Test accuracy of block 0"
selection = {{ experiment = "{EXPERIMENT}", where = {{ point = {first} }} }}
metric = "accuracy"
split = "test"
"""


EVIDENCE_JSON: dict[str, Any] = {
    "schema_version": 1,
    "title": "Build-system benchmark (synthetic runs)",
    "authors": ["bench/harness.py"],
    "claims": [
        {"id": "first_beats_second",
         "statement": "The first block beats the second on test accuracy by {value} (95% CI {ci}).",
         "evidence": {"ref": "verify:first_vs_second", "quantity": "diff"},
         "predicate": {"kind": "classification", "equals": "effect"},
         "format": {"style": "points", "decimals": 1}, "tolerance": 0.01, "figures": ["b00000"]},
        {"id": "first_accuracy",
         "statement": "The first block reaches a mean test accuracy of {value} over {n} runs (95% CI {ci}).",
         "evidence": {"ref": "aggregate:first_accuracy", "quantity": "mean"},
         "format": {"style": "percent", "decimals": 1}, "tolerance": 0.005, "figures": ["b00000"]},
    ],
    "reconcile": {"include": ["paper/**/*.j2"]},
    "disclosure": {"min_seeds": 1},
    "waivers": [],
}


def accuracy_of(point: int) -> float:
    """Fabricated test accuracy: block 0 is clearly better than block 1, the rest spread out."""
    rng = random.Random(point)
    block = point // RUNS_PER_FIGURE
    mean = 0.95 if block == 0 else 0.90 if block == 1 else 0.80 + 0.15 * rng.random()
    return round(min(0.999, mean + rng.gauss(0.0, 0.005)), 6)


def run_files(spec_json: dict[str, Any], run_id: str, environment: dict[str, Any]) -> dict[str, bytes]:
    """The files of one synthetic sealed run (what the runner would write after training)."""
    identity = spec_json["identity"]
    point = int(identity["config"]["point"])
    test = accuracy_of(point)
    val, train = round(test - 0.01, 6), round(min(0.999, test + 0.02), 6)
    results = {
        "schema_version": 1, "run_id": run_id, "key": spec_json["key"],
        "experiment": spec_json["experiment"], "label": spec_json["label"],
        "group": spec_json["group"], "role": spec_json["role"], "trainer": identity["trainer"],
        "seed": identity["seed"], "config": identity["config"], "selection_metric": "accuracy",
        "metrics": {
            "accuracy": {"direction": "higher", "values": {"train": train, "val": val, "test": test}},
            "loss": {"direction": "lower",
                     "values": {"train": round(1 - train, 6), "val": round(1 - val, 6),
                                "test": round(1 - test, 6)}},
        },
        "evaluations": [
            {"split": "train", "when": "before_training", "purpose": "diagnostic"},
            {"split": "val", "when": "every_epoch", "purpose": "monitoring"},
            {"split": "train", "when": "final", "purpose": "report"},
            {"split": "val", "when": "final", "purpose": "selection"},
            {"split": "test", "when": "final", "purpose": "report"},
        ],
        "diagnostics": {"initial_loss": 2.3, "chance_loss": 2.302585092994046, "n_classes": 10,
                        "prediction_entropy": 2.1, "max_prediction_entropy": 2.302585092994046,
                        "majority_prediction_share": 0.12},
        "epochs": 1, "steps": 17,
    }
    metrics = [{"epoch": 1, "step": 17, "train/loss": round(1 - train, 6), "val/accuracy": val,
                "val/loss": round(1 - val, 6)}]
    provenance = {
        "schema_version": 1, "run_id": run_id,
        "git": {"commit": None, "dirty": None, "branch": None, "error": "synthetic run (bench/harness.py)"},
        "environment": environment, "started_at": "2026-01-01T00:00:00Z",
        "finished_at": "2026-01-01T00:00:01Z", "wall_seconds": 1.0, "cpu_seconds": 1.0,
        "checkpoint_seconds": 0.0, "checkpoints_written": 0, "resumes": 0, "threads": 1,
        "source": {"kind": "synthetic", "host": "bench/harness.py"},
    }
    weights = random.Random(run_id).randbytes(4096)

    def js(value: Any) -> bytes:
        return (json.dumps(value, indent=2, sort_keys=True) + "\n").encode("utf-8")

    return {"spec.json": js(spec_json), "results.json": js(results),
            "metrics.jsonl": "".join(json.dumps(m, sort_keys=True) + "\n" for m in metrics).encode(),
            "model.safetensors": weights, "provenance.json": js(provenance)}


def _seal_chunk(root: str, specs: list[dict[str, Any]]) -> int:
    """Worker: seal each spec's synthetic run through RunStore.seal (skips runs already sealed)."""
    from evidence.core.project import Project
    from evidence.core.provenance import environment
    from evidence.core.schema import validate
    from evidence.store.runs import MANIFEST, RunStore, run_id_for

    project = Project.at(root)
    store = RunStore(project.runs_dir)
    env = environment()
    sealed = 0
    for spec_json in specs:
        run_id = run_id_for(spec_json["key"])
        # one stat, not store.find: each seal changes the store folder, so find() would list the
        # whole store again for every run (sealing 100,000 runs took quadratic time)
        if (store.root / run_id / MANIFEST).is_file():
            continue
        staging = project.work_dir / f"bench-{run_id}"
        if staging.exists():
            shutil.rmtree(staging)
        staging.mkdir(parents=True)
        files = run_files(spec_json, run_id, env)
        validate(json.loads(files["results.json"]), "results", staging / "results.json")
        validate(json.loads(files["provenance.json"]), "provenance", staging / "provenance.json")
        validate(spec_json, "spec", staging / "spec.json")
        for name, data in files.items():
            (staging / name).write_bytes(data)
        store.seal(staging, run_id, spec_json["key"])
        sealed += 1
    return sealed


def evidence_template_dodo() -> str:
    from importlib import resources

    return (resources.files("evidence") / "templates" / "project" / "dodo.py").read_text("utf-8")


def make_evidence(folder: Path, n: int, *, git: bool, workers: int) -> dict[str, Any]:
    """Write the evidence project and seal the runs of both states of the incremental change."""
    from evidence.core.project import Project
    from evidence.experiments.spec import expand

    blocks = figure_blocks(n)
    main_points, alt_points = list(range(n)), [*range(n - 1), n]
    write(folder / "dodo.py", evidence_template_dodo())
    write(folder / "trainers" / "model.py", TRAINER)
    write(folder / "experiments" / f"{EXPERIMENT}.toml", experiment_toml(main_points))
    write(folder / ".bench" / "alt" / f"{EXPERIMENT}.toml", experiment_toml(alt_points))
    write(folder / ".bench" / "main" / f"{EXPERIMENT}.toml", experiment_toml(main_points))
    for j, block in enumerate(blocks):
        write(folder / "figures" / f"b{j:05d}" / "figure.toml", figure_toml(j, block))
    write(folder / "comparisons.toml", comparisons_toml(blocks))
    write(folder / "EVIDENCE.json", json.dumps(EVIDENCE_JSON, indent=2) + "\n")
    write(folder / "paper" / "paper.md.j2", PAPER)
    write(folder / ".gitignore", ".evidence/\nbuild/\n.bench/\n__pycache__/\n")
    (folder / "runs").mkdir(exist_ok=True)
    project = Project.at(folder)
    main = expand(project, folder / "experiments" / f"{EXPERIMENT}.toml")
    alt = expand(project, folder / ".bench" / "alt" / f"{EXPERIMENT}.toml")
    main_keys = {s.key for s in main}
    extra = [s for s in alt if s.key not in main_keys]
    if len(main) != n or len(extra) != 1:
        raise SystemExit(f"evidence project: expected {n} runs and one changed key, got "
                         f"{len(main)} runs and {len(extra)} changed keys")
    specs = [s.to_json() for s in [*main, *extra]]
    chunks = [specs[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        sealed = sum(pool.map(_seal_chunk, [str(project.root)] * workers, chunks))
    if git:
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        subprocess.run(["git", "init", "-q"], cwd=folder, check=True, **quiet)  # type: ignore[arg-type]
        subprocess.run(["git", "add", "-A"], cwd=folder, check=True, **quiet)  # type: ignore[arg-type]
        subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                        "commit", "-q", "--no-gpg-sign", "-m", "synthetic benchmark project"],
                       cwd=folder, check=True, **quiet)  # type: ignore[arg-type]
    return {"runs": len(specs), "sealed_now": sealed, "figures": len(blocks)}


def evidence_clean(folder: Path) -> None:
    """Back to a fresh clone with a sealed store: no presentation layer, no doit state."""
    state = folder / ".evidence"
    remove([folder / "build", *state.glob("doit.sqlite3*"), state / "specs", state / "locks"])
    for fig in (folder / "figures").iterdir():
        remove(p for p in fig.iterdir() if p.name != "figure.toml")


def evidence_toggle(folder: Path) -> str:
    """Change one grid value of the experiment (N-1 <-> N): exactly one run key changes."""
    target = folder / "experiments" / f"{EXPERIMENT}.toml"
    main = (folder / ".bench" / "main" / f"{EXPERIMENT}.toml").read_text("utf-8")
    alt = (folder / ".bench" / "alt" / f"{EXPERIMENT}.toml").read_text("utf-8")
    now = target.read_text("utf-8")
    replace_text(target, alt if now == main else main)
    return "alt" if now == main else "main"


def evidence_reset_state(folder: Path) -> None:
    """Put the experiment back in its main state (before a full build)."""
    main = (folder / ".bench" / "main" / f"{EXPERIMENT}.toml").read_text("utf-8")
    target = folder / "experiments" / f"{EXPERIMENT}.toml"
    if target.read_text("utf-8") != main:
        replace_text(target, main)


# --------------------------------------------------------------------------- peers


def config_json(i: int, alt: bool = False) -> str:
    return json.dumps({"point": i, "lr": 0.2 if alt else 0.1, "epochs": 1}) + "\n"


def write_configs(folder: Path, n: int) -> None:
    for i in range(n):
        write(folder / "config" / f"run{i}.json", config_json(i))
    for sub in ("results", "figures"):
        (folder / sub).mkdir(exist_ok=True)


def peer_toggle(folder: Path, n: int) -> str:
    """Change one run's config content (DVC hashes content, so a touch would not do)."""
    path = folder / "config" / f"run{n - 1}.json"
    alt = path.read_text("utf-8") == config_json(n - 1)
    replace_text(path, config_json(n - 1, alt=alt))
    return "alt" if alt else "main"


def peer_reset_state(folder: Path, n: int) -> None:
    path = folder / "config" / f"run{n - 1}.json"
    if path.read_text("utf-8") != config_json(n - 1):
        replace_text(path, config_json(n - 1))


def peer_outputs(folder: Path) -> list[Path]:
    return [*(folder / "results").glob("*"), *(folder / "figures").glob("*"), folder / "paper.md"]


PLAIN_DODO = '''"""Plain doit, the floor: the benchmark's task graph with file_dep/targets only."""

from pathlib import Path

N = {n}
BLOCKS = {blocks!r}
DOIT_CONFIG = {{"backend": "sqlite3", "dep_file": ".doit.sqlite3", "default_tasks": ["deliver"],
               "verbosity": 2}}


def concat(sources, target):
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_bytes(b"".join(Path(s).read_bytes() for s in sources))


def task_train():
    for i in range(N):
        source, target = f"config/run{{i}}.json", f"results/run{{i}}.json"
        yield {{"name": f"run{{i}}", "actions": [(concat, [[source], target])],
               "file_dep": [source], "targets": [target]}}


def task_figure():
    for j, block in enumerate(BLOCKS):
        sources = [f"results/run{{i}}.json" for i in block if i < N]
        yield {{"name": f"fig{{j}}", "actions": [(concat, [sources, f"figures/fig{{j}}.csv"])],
               "file_dep": sources, "targets": [f"figures/fig{{j}}.csv"]}}


def task_deliver():
    figures = [f"figures/fig{{j}}.csv" for j in range(len(BLOCKS))]
    return {{"actions": [(concat, [figures, "paper.md"])], "file_dep": figures, "targets": ["paper.md"]}}
'''


def make_doit(folder: Path, n: int) -> None:
    write_configs(folder, n)
    blocks = [[i for i in b if i < n] for b in figure_blocks(n)]
    write(folder / "dodo.py", PLAIN_DODO.format(n=n, blocks=blocks))


def doit_clean(folder: Path) -> None:
    remove([*peer_outputs(folder), *folder.glob(".doit.sqlite3*")])


SNAKEFILE = '''# The benchmark's task graph for Snakemake: the same three rules.
N = {n}
FIGURES = {figures}


def figure_inputs(wildcards):
    start = int(wildcards.j) * 10
    return [f"results/run{{i}}.json" for i in range(start, min(start + 10, N))]


rule deliver:
    input: expand("figures/fig{{j}}.csv", j=range(FIGURES))
    output: "paper.md"
    shell: "cat {{input}} > {{output}}"


rule figure:
    input: figure_inputs
    output: "figures/fig{{j}}.csv"
    shell: "cat {{input}} > {{output}}"


rule train:
    input: "config/run{{i}}.json"
    output: "results/run{{i}}.json"
    shell: "cp {{input}} {{output}}"
'''


def make_snakemake(folder: Path, n: int) -> None:
    write_configs(folder, n)
    write(folder / "Snakefile", SNAKEFILE.format(n=n, figures=len(figure_blocks(n))))


def snakemake_clean(folder: Path) -> None:
    remove([*peer_outputs(folder), folder / ".snakemake"])


def dvc_yaml(n: int) -> str:
    lines = ["stages:"]
    for i in range(n):
        lines += [f"  train{i}:", f"    cmd: cp config/run{i}.json results/run{i}.json",
                  f"    deps: [config/run{i}.json]", f"    outs: [results/run{i}.json]"]
    blocks = [[i for i in b if i < n] for b in figure_blocks(n)]
    for j, block in enumerate(blocks):
        sources = [f"results/run{i}.json" for i in block]
        lines += [f"  figure{j}:", f"    cmd: cat {' '.join(sources)} > figures/fig{j}.csv",
                  f"    deps: [{', '.join(sources)}]", f"    outs: [figures/fig{j}.csv]"]
    figures = [f"figures/fig{j}.csv" for j in range(len(blocks))]
    lines += ["  deliver:", f"    cmd: cat {' '.join(figures)} > paper.md",
              f"    deps: [{', '.join(figures)}]", "    outs: [paper.md]"]
    return "\n".join(lines) + "\n"


def make_dvc(folder: Path, n: int, dvc: str, env: dict[str, str]) -> None:
    write_configs(folder, n)
    if not (folder / ".dvc").is_dir():
        subprocess.run([dvc, "init", "--no-scm", "-q"], cwd=folder, env=env, check=True)
        for key, value in (("core.analytics", "false"), ("core.check_update", "false")):
            subprocess.run([dvc, "config", key, value], cwd=folder, env=env, check=True)
    write(folder / "dvc.yaml", dvc_yaml(n))


def dvc_clean(folder: Path) -> None:
    """No lock file, no cache (no run-cache either), no state: every stage runs."""
    remove([*peer_outputs(folder), folder / "dvc.lock", folder / ".dvc" / "cache", folder / ".dvc" / "tmp"])
