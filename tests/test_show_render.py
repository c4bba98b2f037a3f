"""How `evidence show` lays a table out and how the evidence page escapes it (no training)."""

from __future__ import annotations

import math

from scipy import stats as sps

from evidence.deliver.evidencepage import render_page
from evidence.ops.show import render_csv, render_markdown, render_text
from evidence.verify.runtable import (
    Row,
    RunRow,
    Table,
    differing_keys,
    filter_runs,
    parse_where,
    sort_rows,
    summarize,
)

EVIL = "<script>alert(1)</script>"


def run(label: str, seed: int, config: dict[str, object], accuracy: float | None) -> RunRow:
    metrics = {"accuracy": {"direction": "higher", "values": {"test": accuracy}}}
    return RunRow("exp", label.rsplit("-s", 1)[0], label.rsplit("-s", 1)[0], label, seed, "model",
                  f"{seed:064x}", f"{seed:016x}", "sealed", "", config, metrics)


def table(rows: list[Row]) -> Table:
    for row in rows:
        row.summaries = {"accuracy": {"test": summarize([r.metrics.get("accuracy", {}).get("values", {})
                                                         .get("test") for r in row.runs])}}
    return Table("variants", rows, differing_keys(rows), [("accuracy", "higher")], ["test"],
                 {"report": None, "stale": False, "note": ""})


def test_summary_is_the_student_t_interval() -> None:
    values = [0.91, 0.93, 0.94, 0.90]
    summary = summarize(values)
    mean = sum(values) / 4
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 3)
    half = float(sps.t.ppf(0.975, 3)) * sd / 2
    assert (summary.n, summary.method) == (4, "student-t")
    assert math.isclose(summary.low or 0, mean - half, abs_tol=1e-12)
    assert math.isclose(summary.high or 0, mean + half, abs_tol=1e-12)
    assert summarize([0.9]).low is None and summarize([None]).n == 0


def test_where_parses_numbers_and_alternatives_and_keeps_types_apart() -> None:
    runs = [run("a-s0", 0, {"lr": 0.01, "flag": True, "n": 1}, 0.9),
            run("b-s0", 0, {"lr": 0.1, "flag": False, "n": 2}, 0.8)]
    assert [r.label for r in filter_runs(runs, parse_where(["lr=0.01"]))] == ["a-s0"]
    assert [r.label for r in filter_runs(runs, parse_where(["lr=1e-2,0.1"]))] == ["a-s0", "b-s0"]
    assert [r.label for r in filter_runs(runs, parse_where(["flag=true"]))] == ["a-s0"]
    assert filter_runs(runs, parse_where(["n=true"])) == []  # True is not 1 here


def test_differing_keys_and_sort_direction() -> None:
    rows = [Row("exp", g, g, "model", {"lr": lr, "epochs": 5}, [run(f"{g}-s0", 0, {"lr": lr}, acc)])
            for g, lr, acc in (("a", 0.1, 0.8), ("b", 0.01, 0.95), ("c", 0.001, None))]
    shown = table(rows)
    assert shown.differing == ["lr"]
    best_first = sort_rows(shown.rows, "accuracy", {"accuracy": "higher"}, ["test"])
    assert [r.group for r in best_first] == ["b", "a", "c"]  # no value: last
    lowest_first = sort_rows(shown.rows, "accuracy", {"accuracy": "lower"}, ["test"])
    assert [r.group for r in lowest_first] == ["a", "b", "c"]


def test_text_goes_vertical_within_the_width_and_csv_keeps_every_digit() -> None:
    name = "variant-with-a-rather-long-name-"
    rows = [Row("exp", f"{name}{i}", f"{name}{i}", "model",
                {"lr": 0.1 * (i + 1), "optimizer.momentum": 0.9 - i / 10},
                [run(f"v{i}-s{s}", s, {}, 0.9 + i / 100 + s / 1000) for s in range(3)]) for i in range(3)]
    shown = table(rows)
    text = render_text(shown, 60)
    assert max(len(line) for line in text.splitlines()) <= 60
    assert "\nexp/variant-with-a-rather-long-name-0  (3 sealed)\n" in text
    assert render_text(shown, 200).count("\n") < text.count("\n")  # a table where it fits
    csv_text = render_csv(shown)
    mean = rows[0].summaries["accuracy"]["test"].mean
    assert repr(mean) in csv_text
    assert "| exp/variant-with-a-rather-long-name-0 | 3 sealed |" in render_markdown(shown)


def test_the_evidence_page_escapes_everything() -> None:
    rows = [Row("exp", EVIL, EVIL, "model", {"note": EVIL, "lr": 0.1}, [run("a-s0", 0, {}, 0.9)]),
            Row("exp", "b", "b", "model", {"note": "x", "lr": 0.2}, [run("b-s0", 1, {}, 0.8)])]
    shown = table(rows)
    shown.rows[0].verdicts.append({"comparison": EVIL, "side": "a", "other": EVIL, "class": "effect",
                                   "as_claimed": True, "metric": "accuracy", "split": "test"})
    page = render_page(shown, {rows[0].runs[0].run_id: [EVIL]}, EVIL)
    assert "<script>" not in page and page.count("&lt;script&gt;") >= 5
    assert 'href="runs/0000000000000000/results.json"' in page


def test_diff_of_equal_means_is_zero_and_one_run_has_no_interval() -> None:
    from evidence.verify.rundiff import Side, metric_deltas

    values = [0.1, 0.2, 0.7]  # a mean whose two summation orders differ in the last bit
    a = Side("a", "variant", [run(f"a-s{i}", i, {}, v) for i, v in enumerate(values)])
    b = Side("b", "variant", [run(f"b-s{i}", i, {}, v) for i, v in enumerate(reversed(values))])
    entry = metric_deltas(a, b)[0]
    assert entry["diff"] == 0.0 and entry["method"] == "welch-t"
    one = metric_deltas(Side("a", "run", a.runs[:1]), b)[0]
    assert one["ci_low"] is None and "one run" in one["note"]
