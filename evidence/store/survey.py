"""One look at the whole run store per doit process: every run's quick check and a fingerprint.

Why it exists: a no-op asks, for every train task, whether its sealed run exists and passes
the quick check (manifest parses, every listed file present with its recorded size), and three
deliver tasks ask whether anything in the store changed since their last success. Answered one
by one, that parsed every manifest and stat'ed every file of the store several times per call.
The survey reads ``runs/`` once and answers both:

* for every run folder it stats the folder and every file its manifest lists and compares the
  sizes (the quick check of :mod:`evidence.store.runs`, same findings);
* the same stat results (folder mtime, each file's size and mtime, the manifest's signature)
  make the store's fingerprint: publishing, removing or adding a file, or modifying one,
  changes it.

Manifests are parsed once and then memoised (:mod:`evidence.core.memo`) by the manifest's own stat
signature: a sealed manifest never changes, and a changed one is parsed again. A survey is
kept for the rest of the process while the store folder's listing is unchanged; publishing a
run changes the listing, so a run trained earlier in the same doit call is seen.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from evidence.core import memo as memos
from evidence.core.hashing import digest_bytes
from evidence.core.project import Project
from evidence.store.runs import (
    MANIFEST,
    Finding,
    check_sizes,
    listed_run_ids,
    listing_signature,
    manifest_sizes,
)


@dataclass(frozen=True)
class Survey:
    """The store as one doit process saw it."""

    signature: tuple[int, int, int] | None  # of the store folder when surveyed
    findings: dict[str, Finding | None]  # run id -> None (passes the quick check) or the problem
    fingerprint: str

    def intact(self, run_id: str) -> bool:
        return run_id in self.findings and self.findings[run_id] is None


_SURVEYS: dict[Path, Survey] = {}
_SURVEY_SCOPE: dict[Path, int] = {}


def survey(project: Project) -> Survey:
    """The survey of ``project``'s store, taken again only when its listing changed."""
    root = project.runs_dir
    cached = _SURVEYS.get(root)
    scope = memos.steady_scope()
    if cached is not None and scope is not None and _SURVEY_SCOPE.get(root) == scope:
        return cached
    signature = listing_signature(root)
    if cached is not None and cached.signature == signature:
        if scope is not None:
            _SURVEY_SCOPE[root] = scope
        return cached
    memo = memos.of(project, "manifests")
    findings: dict[str, Finding | None] = {}
    entries: list[Any] = []
    base = str(root)
    for run_id in listed_run_ids(root) if signature is not None else []:
        run_path = f"{base}{os.sep}{run_id}{os.sep}"
        try:
            folder_mtime = os.stat(run_path).st_mtime_ns
        except OSError:  # removed since the listing was read
            continue
        manifest = run_path + MANIFEST
        parsed: dict[str, Any] = memo.get(run_id, partial(list, [manifest]),
                                          partial(manifest_sizes, run_path, run_id))
        stats: list[tuple[str, int, int]] = []
        findings[run_id] = check_sizes(run_path, run_id, parsed, stats)
        entries.append([run_id, folder_mtime, memo.checked_signature(run_id), stats,
                        None if findings[run_id] is None else str(findings[run_id])])
    memo.forget(findings)
    memo.save()
    fingerprint = digest_bytes(json.dumps(entries, separators=(",", ":")).encode("utf-8"))
    result = Survey(signature, findings, fingerprint)
    _SURVEYS[root] = result
    if scope is not None:
        _SURVEY_SCOPE[root] = scope
    return result
