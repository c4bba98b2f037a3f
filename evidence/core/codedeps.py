"""Which engine files a step's code depends on, derived from its imports (never listed by hand).

Why: a make must never call an output up to date after the code that produced it changed.
Hand-kept lists of "the modules this task uses" drift (they did: reconcile's matching code and
the run selection behind every figure were missing from theirs). Here a step names the module
of its action; its code dependencies are that module plus every engine module it imports,
transitively, including imports inside functions (the engine imports heavy libraries lazily,
so a function-level import is as real as a top-level one) and the ``__init__`` of every package
on the way (importing ``evidence.core.hashing`` runs ``evidence/core/__init__.py``).

The graph is read from the source text (imports only, nothing is executed) once per process;
reading ~60 files this way costs a few milliseconds, far less than parsing them.

Logical names (:func:`logical_source`) serve the run key: a run depends on the *content* of
the numerical code, not on which package folder it sits in, so a pure move of modules between
packages (which rewrites only engine import paths) keeps every run key.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from evidence.core.project import Project

ENGINE_DIR = Path(__file__).resolve().parents[1]
PACKAGE = "evidence"

_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(evidence(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)"
                     r"|import[ \t]+(evidence(?:\.\w+)*))", re.MULTILINE)
#: The engine's subpackages: the part of a dotted engine path that a move changes.
SUBPACKAGES = tuple(sorted(p.parent.name for p in ENGINE_DIR.glob("*/__init__.py")))
_ENGINE_PATH = re.compile(r"\bevidence\.(?:" + "|".join(SUBPACKAGES) + r")\b(\.?)")


def module_file(module: str) -> Path | None:
    """The file of an engine module (``evidence.core.hashing``), or None if there is none."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = ENGINE_DIR.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _with_packages(module: str) -> list[str]:
    """``evidence.a.b`` -> ``[evidence, evidence.a, evidence.a.b]``: importing runs each."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


@cache
def direct_imports(module: str) -> frozenset[str]:
    """Engine modules that ``module``'s source imports anywhere in the file."""
    path = module_file(module)
    if path is None:
        return frozenset()
    found: set[str] = set()
    for match in _IMPORT.finditer(path.read_text("utf-8")):
        source, names, plain = match.groups()
        if plain:
            found.update(_with_packages(plain))
            continue
        found.update(_with_packages(source))
        for name in names.strip().strip("()").split(","):
            name = name.split(" as ")[0].strip()
            if name and module_file(f"{source}.{name}") is not None:
                found.update(_with_packages(f"{source}.{name}"))
    found.discard(module)
    return frozenset(m for m in found if module_file(m) is not None)


@cache
def closure(module: str) -> tuple[str, ...]:
    """``module`` and every engine module it imports, transitively, sorted."""
    seen: set[str] = set()
    stack = [module, *_with_packages(module)]
    while stack:
        current = stack.pop()
        if current in seen or module_file(current) is None:
            continue
        seen.add(current)
        stack.extend(direct_imports(current))
    return tuple(sorted(seen))


def code_files(*modules: str) -> list[Path]:
    """The files of every engine module that the given modules' code depends on."""
    files = {module_file(m) for module in modules for m in closure(module)}
    return sorted(f for f in files if f is not None)


def code_deps(*modules: str) -> list[str]:
    """:func:`code_files` as strings, for a doit task's ``file_dep``."""
    return [str(path) for path in code_files(*modules)]


def code_stamp(project: Project, *modules: str) -> str:
    """One file that stands, in a task's ``file_dep``, for every engine file the modules' code
    depends on: it lists each file with its digest, and is rewritten only when one changes.

    Why: a figure step depends on ~30 engine files; as 30 ``file_dep`` entries per task, doit
    stat'ed and compared 60,000 of them on every call at 1,000 figures. Editing any of those files
    changes the stamp's content, so exactly the steps whose code changed are stale, as before.
    The stamp names each file, so ``evidence why`` can still say which one changed.
    """
    return _stamp(project, tuple(sorted(set(modules))))


@cache
def _stamp(project: Project, modules: tuple[str, ...]) -> str:
    from evidence.core import memo
    from evidence.core.hashing import write_bytes_atomic

    top = ENGINE_DIR.parent
    lines = [f"{memo.digest(project, path, namespace='code-digests')}  "
             f"{path.relative_to(top).as_posix()}" for path in code_files(*modules)]
    text = ("\n".join(lines) + "\n").encode("utf-8")
    stamp = project.state_dir / "code" / f"{'+'.join(modules)}.txt"
    try:
        current = stamp.read_bytes()
    except OSError:
        current = None
    if current != text:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(stamp, text)
    return str(stamp)


def module_of(function: object) -> str:
    """The module that defines ``function`` (a task's action), for :func:`code_deps`."""
    return str(getattr(function, "__module__", ""))


def logical_source(path: Path) -> bytes:
    """A file's source with engine import paths reduced to module names (for run keys).

    ``from evidence.core.hashing import digest_file`` and ``from evidence.hashing import
    digest_file`` read the same: moving a module between packages is not a change of numerics.
    """
    text = path.read_text("utf-8")
    return _ENGINE_PATH.sub(lambda m: "evidence" + m[1], text).encode("utf-8")
