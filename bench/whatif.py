"""Prototypes of engine changes, applied by monkeypatching, to measure what they would gain.

    cd <project> && python <repo>/bench/whatif.py --patches find,quick,key,select deliver

runs ``doit`` (the remaining arguments) in this process after patching the engine in memory;
no engine file is touched. The patches are sketches of the changes proposed in
``bench/results.md``, with the same results on the benchmark's project, not drop-in code:

* ``find``: :meth:`RunStore.generations` answers from one listing of ``runs/`` per process,
  re-read only when the folder's mtime changes (sealing a run renames a folder into it),
  instead of a ``glob`` over the whole store on every call (O(N) per call, O(N²) per no-op);
* ``quick``: :meth:`RunStore.quick_check` parses the manifest and stats its files but skips
  the JSON Schema validation (left to ``fsck``);
* ``key``: :attr:`RunSpec.key` is computed once per spec instead of on every access;
* ``select``: :func:`evidence.select.select` looks candidates up in an index of the
  experiment's specs by filter value instead of matching every spec (O(N) per selection).
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from functools import cached_property
from pathlib import Path
from typing import Any

PATCHES = ("find", "quick", "key", "select")


def patch_find() -> None:
    from evidence import store

    cache: dict[Path, tuple[int, dict[str, list[int]]]] = {}

    def listing(root: Path) -> dict[str, list[int]]:
        try:
            mtime = root.stat().st_mtime_ns
        except FileNotFoundError:
            return {}
        hit = cache.get(root)
        if hit and hit[0] == mtime:
            return hit[1]
        found: dict[str, list[int]] = defaultdict(list)
        with os.scandir(root) as entries:
            for entry in entries:
                match = store._RUN_ID.match(entry.name)
                if match and entry.is_dir():
                    found[match.group(1)].append(int(match.group(2) or 1))
        table = {base: sorted(gens) for base, gens in found.items()}
        cache[root] = (mtime, table)
        return table

    def generations(self: Any, key: str) -> list[int]:
        return list(listing(self.root).get(key[: store.RUN_ID_LENGTH], []))

    store.RunStore.generations = generations  # type: ignore[method-assign]


def patch_quick() -> None:
    import json

    from evidence import store

    def quick_check(self: Any, run_id: str) -> Any:
        run_path = self.path(run_id)
        try:
            manifest = json.loads((run_path / store.MANIFEST).read_text("utf-8"))
            files = manifest["files"]
        except (OSError, ValueError, KeyError, TypeError):
            return store.Finding(run_id, store.MANIFEST, "manifest is missing or malformed")
        if manifest.get("run_id") != run_id:
            return store.Finding(run_id, store.MANIFEST, f"manifest names run {manifest.get('run_id')}")
        for name, entry in files.items():
            try:
                size = os.stat(run_path / name).st_size
            except OSError:
                return store.Finding(run_id, name, "file is missing")
            if size != entry["size"]:
                return store.Finding(run_id, name, f"size {size} differs from recorded {entry['size']}")
        return None

    store.RunStore.quick_check = quick_check  # type: ignore[method-assign]


def patch_key() -> None:
    from evidence import spec

    prop = cached_property(lambda self: spec.key_of(self.identity))
    prop.__set_name__(spec.RunSpec, "key")
    spec.RunSpec.key = prop  # type: ignore[assignment,method-assign]


def patch_select() -> None:
    from evidence import select as module

    original = module.select
    indexes: dict[int, tuple[Any, dict[tuple[str, Any], list[int]]]] = {}

    def value_of(spec: Any, name: str) -> Any:
        if name in module.SPEC_FILTERS:
            return getattr(spec, name)
        if name == "seed":
            return spec.seed
        return spec.identity["config"].get(name.removeprefix("config."))

    def index_of(specs: tuple[Any, ...], names: list[str]) -> dict[tuple[str, Any], list[int]]:
        hit = indexes.get(id(specs))
        if hit is None or hit[0] is not specs:
            hit = (specs, {})
            indexes[id(specs)] = hit
        table = hit[1]
        for name in names:
            if (name, None) not in table:
                table[(name, None)] = []
                for i, spec in enumerate(specs):
                    try:
                        table.setdefault((name, value_of(spec, name)), []).append(i)
                    except TypeError:  # an unhashable config value: no index for this filter
                        table[(name, None)] = [-1]
                        break
        return table

    def select(project: Any, selection: Any, *, require_sealed: bool = False, source: object = None) -> Any:
        specs = module.specs_of(project, selection.experiment)
        names = [name for name, _ in selection.where]
        table = index_of(specs, names)
        if not names or any(table[(name, None)] == [-1] for name in names):
            return original(project, selection, require_sealed=require_sealed, source=source)
        positions: set[int] | None = None
        for name, wanted in selection.where:
            options = wanted if isinstance(wanted, tuple) else (wanted,)
            hits = {i for option in options for i in table.get((name, option), ())}
            positions = hits if positions is None else positions & hits
        store = module.RunStore(project.runs_dir)
        chosen = []
        for i in sorted(positions or ()):
            spec = specs[i]
            run = store.find(spec.key)
            chosen.append(module.SelectedRun(spec, run.run_id if run else module.run_id_for(spec.key), run))
        if not chosen or require_sealed:
            return original(project, selection, require_sealed=require_sealed, source=source)
        return chosen

    for name in ("evidence.select", "evidence.figures", "evidence.verify_tasks", "evidence.verify"):
        mod = sys.modules.get(name) or __import__(name, fromlist=["_"])
        if getattr(mod, "select", None) is original:
            mod.select = select  # type: ignore[attr-defined]


def apply(names: list[str]) -> None:
    for name in names:
        {"find": patch_find, "quick": patch_quick, "key": patch_key, "select": patch_select}[name]()


def main(argv: list[str]) -> int:
    names: list[str] = []
    if argv[:1] == ["--patches"]:
        names = [n for n in argv[1].split(",") if n and n != "none"]
        argv = argv[2:]
    unknown = set(names) - set(PATCHES)
    if unknown:
        raise SystemExit(f"unknown patches {sorted(unknown)}; known: {', '.join(PATCHES)}")
    apply(names)
    from doit.doit_cmd import DoitMain

    return int(DoitMain().run(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
