"""doit tasks for figures and tables: two subtasks per artifact, with exact dependencies.

``figures:<name>/source_data`` reads the selected runs and writes ``source_data.csv``; its
file_dep are the runs' ``results.json`` and ``metrics.jsonl`` (the results.json paths are
targets of ``train`` subtasks, so doit trains missing runs first), the spec and the engine code
of that step. ``figures:<name>/render`` depends on the CSV, its sidecar, the spec, ``plot.py``
and the drawing code only, so the plot step structurally cannot see a run. Changing one run
changes the paths or digests of exactly the artifacts that read it; a no-op checks
timestamps and reads no file. ``tables:<name>/...`` is the same for tables.

Bad specs raise :class:`~evidence.core.errors.BadInputError` while the tasks are built, which
:func:`evidence.tasks.base.user_errors` turns into doit's one-line ``ERROR:`` and exit code 3;
a step that fails (a run missing, the gate rejecting a figure) fails its task (exit 1).
"""

from __future__ import annotations

from collections.abc import Iterator

from evidence.core.codedeps import code_stamp
from evidence.core.project import Project
from evidence.present import artifacts as figures
from evidence.tasks.actions import task_action
from evidence.tasks.base import TaskDict, user_errors


@task_action
def source_action(project_root: str, artifact: str, name: str) -> None:
    """doit action of step one: runs -> source_data.csv (+ sidecar)."""
    art = figures.load(Project.at(project_root), artifact, name)
    record = figures.build_source(art)
    print(f"{art.rel(art.source_data)}: {record['rows']} rows from {len(record['runs'])} runs")


@task_action
def render_action(project_root: str, artifact: str, name: str) -> None:
    """doit action of step two: source_data.csv -> images or table files (+ sidecar)."""
    from evidence.present.render import render  # matplotlib only when something is drawn

    art = figures.load(Project.at(project_root), artifact, name)
    record = render(art)
    gate = record["gate"]
    counts = (f"{gate['series']} series, {gate['points']} points" if artifact == "figure"
              else f"{gate['rows']} rows x {gate['columns']} columns")
    print(f"{art.rel(art.folder)}: {', '.join(p.name for p in art.outputs.values())} "
          f"(gate passed: {counts}); {record['spread']}")


def artifact_tasks(project: Project, artifact: str) -> Iterator[TaskDict]:
    """The two subtasks of every figure (or table) of the project."""
    # one stamp file each for the engine code of the two steps (evidence.core.codedeps)
    source_code = [code_stamp(project, figures.SOURCE_MODULE)]
    render_code = [code_stamp(project, figures.RENDER_MODULE)]
    for art in figures.discover(project, artifact):
        figures.check_order(art)
        args = [str(project.root), artifact, art.name]
        spec = str(art.spec_path)
        yield {
            "name": f"{art.name}/source_data",
            "doc": f"runs -> {art.shown}/{figures.SOURCE_DATA}",
            "actions": [(source_action, args)],
            "file_dep": sorted({*figures.run_file_paths(art), spec, *source_code}),
            "targets": [str(art.source_data), str(art.source_sidecar)],
            "clean": True,
        }
        extra = [str(art.script)] if art.script is not None else []
        yield {
            "name": f"{art.name}/render",
            "doc": f"{art.shown}/{figures.SOURCE_DATA} -> {art.artifact} + provenance sidecar",
            "actions": [(render_action, args)],
            "file_dep": sorted({str(art.source_data), str(art.source_sidecar), spec, *extra,
                                *render_code}),
            "targets": [*map(str, art.outputs.values()), str(art.sidecar)],
            "clean": True,
        }


@user_errors
def task_figures(project: Project) -> Iterator[TaskDict]:
    yield {"name": None, "doc": "results.json -> source_data.csv -> figure + provenance sidecar"}
    yield from artifact_tasks(project, "figure")


@user_errors
def task_tables(project: Project) -> Iterator[TaskDict]:
    yield {"name": None, "doc": "results.json -> source_data.csv -> table.md/.tex + sidecar"}
    yield from artifact_tasks(project, "table")
