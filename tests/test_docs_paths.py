"""Every engine module the documentation names exists.

Modules moved into subpackages (``evidence/devices.py`` became ``evidence/train/devices.py``,
``evidence/presets.py`` ``evidence/experiments/presets.py``, ...) while docs/scale-out.md,
docs/formats.md, the schemas' descriptions and the example's TOML comments still sent readers
to the old paths. A reader follows a path; it must lead somewhere.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MODULE_PATH = re.compile(r"\bevidence/[A-Za-z0-9_/]+\.py\b")
DOTTED_MODULE = re.compile(r"\bevidence(?:\.[a-z_][a-z0-9_]*)+\b")
#: Names shaped like a dotted module that are something else.
NOT_MODULES = {"evidence.toml", "evidence.html"}


def documents() -> list[Path]:
    """README.md and docs/*.md, then the other text a user reads: the schemas' descriptions,
    the example's TOML files (their comments), and the engine's own messages and docstrings."""
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")),
            *sorted((REPO / "evidence" / "schemas").glob("*.json")), *sorted(REPO.glob("*.toml")),
            *sorted((REPO / "experiments").glob("*.toml")), *sorted((REPO / "evidence").rglob("*.py"))]


def named_paths(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        found.extend((number, match) for match in MODULE_PATH.findall(line))
    return found


@pytest.mark.parametrize("document", documents(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_named_engine_file_exists(document: Path) -> None:
    missing = [f"{document.relative_to(REPO).as_posix()}:{line}: {name}"
               for line, name in named_paths(document) if not (REPO / name).is_file()]
    assert not missing, "named but not there:\n" + "\n".join(missing)


@pytest.mark.parametrize("document", [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))],
                         ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_named_engine_module_imports(document: Path) -> None:
    """Dotted names (``evidence.scale.dispatch``) as well: each is a module, or an attribute of one."""
    missing = []
    for name in sorted(set(DOTTED_MODULE.findall(document.read_text("utf-8"))) - NOT_MODULES):
        parts = name.split(".")
        # the longest prefix that is a module; what follows must be attributes of it
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if importlib.util.find_spec(module) is not None:
                break
        value: object = importlib.import_module(module)
        for attribute in parts[cut:]:
            value = getattr(value, attribute, None)
        if value is None:
            missing.append(name)
    assert not missing, f"{document.relative_to(REPO).as_posix()} names {missing}"


def test_the_scan_finds_what_it_should() -> None:
    """The patterns match how the docs write paths (so an empty result means none is missing)."""
    assert MODULE_PATH.findall("see `evidence/train/devices.py` and evidence/presets.py).") == [
        "evidence/train/devices.py", "evidence/presets.py"]
    assert DOTTED_MODULE.findall("`evidence.scale.dispatch` and evidence.toml") == [
        "evidence.scale.dispatch", "evidence.toml"]
