"""``evidence init``: a new project that builds end to end at once, in its own git repository.

Templates live in ``evidence/templates`` (installed with the package): ``project`` is the base
(a classifier on a built-in scikit-learn table); ``files`` is laid over it for "my own data from
CSV/files" (a dataset loader, a CSV and a regression trainer with float targets). Every file is
copied as is, except ``gitignore`` which becomes ``.gitignore`` (a dot-file would be dropped by
some packaging tools). Nothing is ever overwritten: an existing file is an error, and the check
happens before the first file is written, so a refused init leaves the folder as it was.

Then the folder becomes a git repository with the template as its first commit (unless it is
already inside one): the init's own next step, ``doit deliver``, records the git commit of every
run, and training in a folder outside git (or with the template uncommitted) would disclose a
dirty tree under every claim.
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from evidence.core.errors import BadInputError

RENAMES = {"gitignore": ".gitignore"}
#: Template name -> the template folders laid over each other, base first.
TEMPLATES = {"table": ("project",), "files": ("project", "files")}
#: Paper layouts ``evidence init --paper`` offers: the Markdown template, LaTeX sources, or both.
PAPER_LAYOUTS = ("markdown", "latex", "both")
MARKDOWN_PAPER = "paper/paper.md.j2"
LATEX_PAPER = "paper/paper.tex"
#: The line of the LaTeX template that becomes one sentence per claim of the project's EVIDENCE.json.
CLAIMS_PLACEHOLDER = "%% evidence-init: one sentence per claim %%"
#: The README's two lines that depend on ``--paper``: what ``doit deliver`` renders, what to edit.
README = "README.md"
_README_LINES = {
    "markdown": ("render build/deliver/paper.html",
                 "`paper/paper.md.j2`: the paper; numbers only through `claim()`, `figure()`, `table()`."),
    "latex": ("write build/deliver/claims.tex and, with latexmk or tectonic, build/deliver/paper.pdf",
              "`paper/paper.tex`: the paper; numbers only through the macros of "
              "`build/deliver/claims.tex` (`\\evClaimName`, `...Interval`, `...N`)."),
    "both": ("render build/deliver/paper.html, claims.tex and, with latexmk or tectonic, "
             "build/deliver/paper.pdf",
             "`paper/paper.md.j2` (numbers only through `claim()`, `figure()`, `table()`) and "
             "`paper/paper.tex` (numbers only through the macros of `build/deliver/claims.tex`): "
             "the paper."),
}


def readme_text(template_text: str, paper: str) -> str:
    """The template README with the paper lines of this layout: it names only files it has."""
    output, source = _README_LINES[paper]
    return template_text.replace("@@PAPER_OUTPUT@@", output).replace("@@PAPER_SOURCE@@", source)


def _walk(node: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    found = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        if child.name == "__pycache__":
            continue
        name = f"{prefix}{RENAMES.get(child.name, child.name)}"
        if child.is_dir():
            found.extend(_walk(child, f"{name}/"))
        else:
            found.append((name, child))
    return found


def template_files(template: str = "table", paper: str = "markdown") -> list[tuple[str, Traversable]]:
    """(relative path in the new project, template file), in a stable order; later layers win.

    ``paper``: ``markdown`` (paper/paper.md.j2, rendered to paper.md and paper.html), ``latex``
    (paper/paper.tex from ``templates/latex``, compiled to paper.pdf) or ``both``.
    """
    if template not in TEMPLATES:
        raise BadInputError("evidence init", f"unknown template {template!r}; expected one of "
                            f"{sorted(TEMPLATES)}", field="--template")
    if paper not in PAPER_LAYOUTS:
        raise BadInputError("evidence init", f"unknown paper layout {paper!r}; expected one of "
                            f"{', '.join(PAPER_LAYOUTS)}", field="--paper")
    chosen: dict[str, Traversable] = {}
    layers = [*TEMPLATES[template], *(["latex"] if paper in ("latex", "both") else [])]
    for layer in layers:
        chosen.update(_walk(resources.files("evidence") / "templates" / layer))
    if paper == "latex":
        chosen.pop(MARKDOWN_PAPER, None)
    return sorted(chosen.items())


def latex_claim_lines(evidence_json: bytes) -> str:
    """One sentence per claim, every number a claims.tex macro (the LaTeX template's claims)."""
    import json

    from evidence.deliver.texnames import macro_base

    lines = []
    for claim in json.loads(evidence_json)["claims"]:
        base = macro_base(claim["id"])
        if base is None:
            continue
        words = claim["id"].replace("_", " ")
        lines.append(f"\\paragraph{{{words}.}} \\{base}{{}} (confidence interval \\{base}Interval, "
                     f"\\{base}N{{}} seeds; supported by its evidence: \\{base}Supported).")
    return "\n\n".join(lines)


def init_project(folder: Path, template: str = "table", *, git: bool = True,
                 paper: str = "markdown") -> list[str]:
    """Create a new project in ``folder`` (which may exist but must not hold any template file)."""
    files = template_files(template, paper)
    clashes = [name for name, _ in files if (folder / name).exists()]
    if clashes:
        raise BadInputError(folder, f"refusing to overwrite {', '.join(clashes[:5])}",
                            hint="choose an empty or new folder")
    evidence = dict(files)["EVIDENCE.json"].read_bytes()
    for name, source in files:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        if name == LATEX_PAPER:  # the claims of this template, cited through their macros
            data = data.replace(CLAIMS_PLACEHOLDER.encode(), latex_claim_lines(evidence).encode())
        if name == README:
            data = readme_text(data.decode("utf-8"), paper).encode("utf-8")
        target.write_bytes(data)
    (folder / "runs").mkdir(exist_ok=True)
    if git:
        init_git(folder, [name for name, _ in files])
    return [name for name, _ in files]


def init_git(folder: Path, names: list[str]) -> str | None:
    """``git init`` and commit the template; None (nothing done) when ``folder`` is in a repository.

    The commit uses the user's git identity, or a neutral one when none is configured (the
    commit is the template's, not the user's work).
    """
    import git

    try:
        git.Repo(folder, search_parent_directories=True)
        return None  # already in a repository: the user's own workflow decides what to commit
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        pass
    repo = git.Repo.init(folder)
    repo.index.add(names)
    reader = repo.config_reader()
    name = reader.get_value("user", "name", "") or "evidence init"
    email = reader.get_value("user", "email", "") or "evidence-init@localhost"
    actor = git.Actor(str(name), str(email))
    commit = repo.index.commit("evidence init: project template", author=actor, committer=actor)
    return str(commit.hexsha)
