"""Score a reconcile corpus (a folder with key.json and the documents) the way the held-out tests do.

Usage: python scripts/score_reconcile_corpus.py CORPUS --example DIR --proj2 DIR [--misses]

``--example`` is a delivered clone of this repository, ``--proj2`` the regression project the
corpora's setup makes (``evidence init --template files --paper latex`` with
tests/data/reconcile_heldout1/setup's EVIDENCE.json and comparisons.toml, delivered). Prints
drifts caught with the right claim per class, decoys flagged and unbound results reported; with
``--misses``, every missed drift and flagged decoy with what reconcile said on its line. Why a
script: a new held-out corpus is scored once, as found, before it becomes test data; the scoring
itself is the held-out tests' (tests/test_reconcile_heldout.py), so the two cannot disagree.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_reconcile_heldout import _findings, score_details


def _said(findings: list[dict[str, Any]]) -> str:
    return "; ".join(f"{f['kind']} {f['claim']} {f['stated']!r}" for f in findings) or "nothing"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--example", type=Path, required=True)
    parser.add_argument("--proj2", type=Path, required=True)
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    right = total = flagged = decoys = 0
    classes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for project, root in (("example", args.example), ("proj2", args.proj2)):
        data = args.corpus.resolve()
        s = score_details(project, _findings(project, root.resolve(), data), data)
        r = sum(a for a, _ in s["per_class"].values())
        t = sum(b for _, b in s["per_class"].values())
        reported, unbound = s["unbound"]
        print(f"{project}: {r}/{t} drifts with the right claim, "
              f"{len(s['decoys'])}/{s['n_decoys']} decoys flagged, unbound {reported}/{unbound}")
        right, total = right + r, total + t
        flagged, decoys = flagged + len(s["decoys"]), decoys + s["n_decoys"]
        for cls, (a, b) in s["per_class"].items():
            classes[cls][0] += a
            classes[cls][1] += b
        if args.misses:
            for d, on in s["missed"]:
                print(f"MISS [{d['class']}] {d['path']}:{d['line']} {d['claim']} {d['text']!r}"
                      f" -- {d['why']} || said: {_said(on)}")
            for u in s["unreported"]:
                print(f"UNBOUND MISSED {u['path']}:{u['line']} {u['text']!r}")
            for c, fs in s["decoys"]:
                print(f"DECOY {c['path']}:{c['line']} {c['text']!r} ({c['why']}) || said: {_said(fs)}")
    share = 100 * right / max(total, 1)
    print(f"total: {right}/{total} = {share:.1f}% drifts, {flagged}/{decoys} decoys flagged")
    print("per class: " + ", ".join(f"{c} {a}/{b}" for c, (a, b) in sorted(classes.items())))


if __name__ == "__main__":
    main()
