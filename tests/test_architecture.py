"""The engine's layering rules (docs/architecture.md), checked against the code itself.

The import graph is read here with :mod:`ast` (every ``import`` and ``from ... import``,
including those inside functions), independently of :mod:`evidence.core.codedeps`, which
reads it from the source text for the build; the two must agree.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from evidence.core import codedeps

ENGINE = Path(codedeps.__file__).resolve().parents[1]
REPO = ENGINE.parent
#: Packages from the bottom up; a module may import its own package and any package below it.
LAYERS = ("core", ("store", "numerics"), "experiments", "remote", ("train", "integrations"), "scale",
          ("verify", "present"), "deliver", "tasks", "ops", "cli")
RANK = {name: rank for rank, layer in enumerate(LAYERS)
        for name in ((layer,) if isinstance(layer, str) else layer)}
#: Within one layer, which sibling may import which (the other direction is a loop).
SIBLING_ORDER = {("present", "verify")}  # present draws verify's intervals; verify never draws


def engine_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in ENGINE.rglob("*.py"):
        if "templates" in path.parts:
            continue
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


MODULES = engine_modules()


def ast_imports(module: str) -> set[str]:
    """Engine modules named by any import statement of ``module`` (anywhere in the file)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not node.module.startswith("evidence"):
                continue
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in MODULES)
    found.discard(module)
    return {m for m in found if m in MODULES}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "cli"


def test_no_import_loop() -> None:
    graph = {m: ast_imports(m) for m in MODULES}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                loop = [*path[path.index(nxt):], nxt]
                pytest.fail("import loop: " + " -> ".join(loop))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_imports_run_one_way_between_packages() -> None:
    wrong = []
    for module in MODULES:
        if module == "evidence":
            continue
        source = package_of(module)
        for imported in ast_imports(module):
            if imported == "evidence":
                continue
            target = package_of(imported)
            if source == target or RANK[target] < RANK[source]:
                continue
            if RANK[target] == RANK[source] and (source, target) in SIBLING_ORDER:
                continue
            wrong.append(f"{module} ({source}) imports {imported} ({target})")
    assert not wrong, "imports that run up the layers:\n" + "\n".join(sorted(wrong))


def test_codedeps_reads_the_same_graph_as_ast() -> None:
    for module in MODULES:
        derived = {m for m in codedeps.direct_imports(module) if m in MODULES}
        # codedeps adds the packages whose __init__ an import runs; ast names the modules only
        assert ast_imports(module) <= derived, module
        assert {m for m in derived - ast_imports(module) if m.count(".") > 1} == set(), module


def test_only_tasks_import_doit_and_heavy_libraries_stay_in_their_layers() -> None:
    allowed = {"doit": {"tasks"},
               "torch": {"numerics", "experiments", "train", "integrations", "scale", "ops"},
               "matplotlib": {"present"}}
    wrong = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                top = name.split(".")[0]
                if top in allowed and package_of(module) not in allowed[top]:
                    wrong.append(f"{module} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_package_inits_are_maps_not_reexports() -> None:
    for module, path in MODULES.items():
        if path.name != "__init__.py" or module == "evidence":
            continue
        body = ast.parse(path.read_text("utf-8")).body
        assert len(body) == 1 and isinstance(body[0], ast.Expr), f"{path}: only a docstring"
        doc = ast.get_docstring(ast.parse(path.read_text("utf-8"))) or ""
        siblings = sorted(p.stem for p in path.parent.glob("*.py") if p.stem != "__init__")
        missing = [s for s in siblings if s not in doc]
        assert not missing, f"{path}: the map does not name {missing}"


def test_task_list_construction_imports_no_heavy_library() -> None:
    """A no-op ``doit`` builds every task; that must not cost torch, scipy or matplotlib."""
    code = ("import importlib.util, json, sys, types\n"
            "spec = importlib.util.spec_from_file_location('dodo', 'dodo.py')\n"
            "dodo = importlib.util.module_from_spec(spec); spec.loader.exec_module(dodo)\n"
            "for name in dir(dodo):\n"
            "    if name.startswith('task_'):\n"
            "        made = getattr(dodo, name)()\n"
            "        if isinstance(made, types.GeneratorType): list(made)\n"
            "print(json.dumps(sorted(m for m in ('torch', 'scipy', 'matplotlib') if m in sys.modules)))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
