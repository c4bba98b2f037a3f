"""Score a reconcile corpus (a folder with key.json and the documents) the way the held-out tests do.

Usage: python scripts/score_reconcile_corpus.py CORPUS --example DIR --proj2 DIR [--misses]

``--example`` is a delivered clone of this repository, ``--proj2`` the regression project the
corpora's setup makes (``evidence init --template files --paper latex`` with
tests/data/reconcile_heldout1/setup's EVIDENCE.json and comparisons.toml, delivered). Prints
drifts caught with the right claim per class, decoys flagged and unbound results reported; with
``--misses``, every missed drift and flagged decoy with what reconcile said on its line. Why a
script: a new held-out corpus is scored once, as found, before it becomes test data.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_reconcile_heldout import _findings, _key, _numbers


def score(project: str, root: Path, data: Path) -> dict[str, Any]:
    """Per class (right, total), flagged decoys, unbound reported, and the misses, for one project."""
    key = _key(data)
    findings = _findings(project, root, data)
    flagged: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for f in findings:
        flagged[(f["file"], f["line"])].append(f)
    entries: Counter[tuple[str, int]] = Counter(
        (e["path"], e["line"]) for kind in ("drifts", "decoys", "unbound") for e in key.get(kind, [])
        if e["project"] == project)
    used: set[int] = set()
    per_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses: list[str] = []
    for d in (d for d in key["drifts"] if d["project"] == project):
        on = flagged.get((d["path"], d["line"]), [])
        accepted = (d["claim"], d.get("bound_claim"), d.get("about"))
        fits = [f for f in on
                if (f["claim"] is not None and f["claim"] in accepted)
                or (d["class"] == "hand_typed" and f["kind"] in ("hand_typed", "unbound") and not f["claim"])]
        per_class[d["class"]][1] += 1
        if fits:
            per_class[d["class"]][0] += 1
            used.update(id(f) for f in fits)
        else:
            said = "; ".join(f"{f['kind']} {f['claim']} {f['stated']!r}" for f in on) or "nothing"
            misses.append(f"MISS [{d['class']}] {d['path']}:{d['line']} {d['claim']} {d['text']!r}"
                          f" -- {d['why']} || said: {said}")

    def on_line(e: dict[str, Any]) -> list[dict[str, Any]]:
        fs = [f for f in flagged.get((e["path"], e["line"]), []) if id(f) not in used]
        if entries[(e["path"], e["line"])] > 1:
            fs = [f for f in fs if set(_numbers(f["stated"])) & set(_numbers(e["text"]))]
        return fs

    unbound = [u for u in key.get("unbound", []) if u["project"] == project]
    reported = 0
    for u in unbound:
        hits = [f for f in on_line(u) if f["kind"] in ("unbound", "hand_typed")]
        reported += bool(hits)
        used.update(id(f) for f in hits)
        if not hits:
            misses.append(f"UNBOUND MISSED {u['path']}:{u['line']} {u['text']!r}")
    decoys = []
    for c in (c for c in key["decoys"] if c["project"] == project):
        fs = on_line(c)
        if fs:
            said = "; ".join(f"{f['kind']} {f['claim']} {f['stated']!r}" for f in fs)
            decoys.append(f"DECOY {c['path']}:{c['line']} {c['text']!r} ({c['why']}) || said: {said}")
    n_decoys = sum(1 for c in key["decoys"] if c["project"] == project)
    return {"per_class": dict(per_class), "decoys": decoys, "n_decoys": n_decoys,
            "unbound": (reported, len(unbound)), "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--example", type=Path, required=True)
    parser.add_argument("--proj2", type=Path, required=True)
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    totals = [0, 0, 0, 0]
    classes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for project, root in (("example", args.example), ("proj2", args.proj2)):
        s = score(project, root.resolve(), args.corpus.resolve())
        right = sum(r for r, _ in s["per_class"].values())
        total = sum(t for _, t in s["per_class"].values())
        reported, unbound = s["unbound"]
        print(f"{project}: {right}/{total} drifts with the right claim, "
              f"{len(s['decoys'])}/{s['n_decoys']} decoys flagged, unbound {reported}/{unbound}")
        totals = [totals[0] + right, totals[1] + total, totals[2] + len(s["decoys"]),
                  totals[3] + s["n_decoys"]]
        for cls, (r, t) in s["per_class"].items():
            classes[cls][0] += r
            classes[cls][1] += t
        if args.misses:
            print("\n".join(s["misses"] + s["decoys"]))
    print(f"total: {totals[0]}/{totals[1]} = {100 * totals[0] / max(totals[1], 1):.1f}% drifts, "
          f"{totals[2]}/{totals[3]} decoys flagged")
    print("per class: " + ", ".join(f"{c} {r}/{t}" for c, (r, t) in sorted(classes.items())))


if __name__ == "__main__":
    main()
