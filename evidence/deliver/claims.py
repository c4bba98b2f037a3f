"""EVIDENCE.json: the claims a paper makes, resolved against the sealed evidence.

A claim names the statistic it rests on by reference into the verify report
(``aggregate:<id>``, ``verify:<comparison id>``, ``expected_max:<id>``), so every number
a claim states is computed once, by the statistics module, from sealed runs. Resolution adds
what the paper and the audits need: the value and its interval, the classification, the run
ids and the digests of their results, whether the predicate holds, and the value formatted
the way the claim says it is shown. The resolved form is generated, never hand-edited.

Predicates (``"predicate"`` of a claim):

* ``{"kind": "classification", "equals": "effect"}``: the verify verdict;
* ``{"kind": "greater_than" | "less_than", "value": x, "of": "value" | "ci_low" | "ci_high"}``;
* ``{"kind": "within", "target": t, "tolerance": d}``: |value - t| <= d ("at chance within 2
  points": target 0.1, tolerance 0.02).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evidence.core.errors import BadInputError, EvidenceError
from evidence.core.project import Project
from evidence.core.readers import read_json
from evidence.core.schema import validate
from evidence.deliver import texnames
from evidence.deliver.reconcile import ClaimQuantity, NumberFormat

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
PLACEHOLDERS = ("value", "ci", "low", "high", "n", "class", "p", "citation")
#: The ``claim`` of a waiver that accepts a number typed by hand into a paper source (no claim's).
HAND_TYPED = "hand_typed"


def load_evidence(project: Project) -> dict[str, Any]:
    """Read and validate EVIDENCE.json; claim ids must be unique (memoised while unchanged)."""
    from evidence.core import memo

    path = project.evidence_file
    value: dict[str, Any] = memo.validated(project, path, "evidence", lambda: _read_evidence(path))
    return value


def _read_evidence(path: Path) -> dict[str, Any]:
    try:
        raw: dict[str, Any] = read_json(path)
    except FileNotFoundError:
        raise BadInputError(path, "EVIDENCE.json is missing",
                            hint="create it (see docs/contracts.md) or run `evidence init`") from None
    validate(raw, "evidence", path)
    seen: set[str] = set()
    macros: dict[str, str] = {}
    for index, claim in enumerate(raw["claims"]):
        if claim["id"] in seen:
            raise BadInputError(path, f"duplicate claim id {claim['id']!r}", field=f"claims[{index}].id")
        seen.add(claim["id"])
        # every claim is a LaTeX macro in claims.tex (deliver.texnames): an id that cannot be one
        # is refused here, by name, not when a LaTeX paper first fails to compile
        macro = texnames.macro_base(claim["id"])
        if macro is None:
            raise BadInputError(path, f"claim id {claim['id']!r} cannot become a LaTeX macro name "
                                "(use letters, digits and '_', as the evidence schema allows)",
                                field=f"claims[{index}].id")
        if macro in macros:
            raise BadInputError(path, f"claim ids {macros[macro]!r} and {claim['id']!r} both become "
                                f"the LaTeX macro \\{macro}", field=f"claims[{index}].id")
        macros[macro] = claim["id"]
        for name in _PLACEHOLDER.findall(claim["statement"]):
            if name not in PLACEHOLDERS:
                raise BadInputError(path, f"unknown placeholder {{{name}}} in the statement; use "
                                    f"{', '.join('{' + p + '}' for p in PLACEHOLDERS)}",
                                    field=f"claims[{index}].statement")
    return raw


@dataclass(frozen=True)
class Format:
    """How a claim's value is shown: percent (x100, "%"), points (x100), or a plain number."""

    style: str = "number"
    decimals: int = 3

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any] | None) -> Format:
        raw = raw or {}
        style = str(raw.get("style", "number"))
        return cls(style, int(raw.get("decimals", 1 if style in ("percent", "points") else 3)))

    @property
    def number_format(self) -> NumberFormat:
        scale = 100.0 if self.style in ("percent", "points") else 1.0
        return NumberFormat(scale=scale, decimals=self.decimals,
                            suffix="%" if self.style == "percent" else "")

    def render(self, value: float | None, *, signed: bool = False) -> str:
        if value is None or not math.isfinite(value):
            return "n/a"
        text = self.number_format.render(value)
        if signed and value > 0:
            text = "+" + text
        if self.style == "points":
            text += " points"
        return text

    def render_interval(self, low: float | None, high: float | None, *, signed: bool = False) -> str:
        """``[a, b]`` in the claim's format, a "points" unit once at the end: "[+0.1, +0.9] points".

        A bound that would round to zero but is not zero gets the decimals it needs to show its
        first digit ("-0.04", not "-0.0": a reader cannot tell which side of zero "-0.0" is on,
        and which side is the point of an interval); one that is zero at every precision a
        reader could care about prints as "0.0", without a sign.
        """
        if low is None or high is None:
            return "n/a"
        if self.style != "points":
            return f"[{self._bound(low, signed)}, {self._bound(high, signed)}]"
        bare = Format("number", self.decimals)
        return f"[{bare._bound(100 * low, signed)}, {bare._bound(100 * high, signed)}] points"

    #: At most this many decimals beyond the claim's own are added to show a bound's first digit.
    EXTRA_BOUND_DECIMALS = 3

    def _bound(self, value: float, signed: bool) -> str:
        if not math.isfinite(value):
            return self.render(value, signed=signed)
        scaled = self.number_format.scaled(value)
        if round(scaled, self.decimals) != 0.0:
            return self.render(value, signed=signed)
        if scaled != 0.0:
            needed = -math.floor(math.log10(abs(scaled)))  # decimals that show the first digit
            if needed <= self.decimals + self.EXTRA_BOUND_DECIMALS:
                return Format(self.style, max(needed, self.decimals)).render(value, signed=signed)
        return Format(self.style, self.decimals).render(0.0)  # no "-0.0", no "+0.0"


#: The quantities a claim can cite, per kind of report entry (docs/contracts.md describes each).
QUANTITIES: dict[str, tuple[str, ...]] = {
    "aggregate": ("mean", "median", "sd", "se", "iqm", "distance_to_reference"),
    "verify": ("improvement", "diff", "prob_improvement", "hedges_g"),
    "expected_max": ("expected@<k>",),
    "reference": ("value",),
}


def _oriented_interval(entry: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """The difference interval turned so that positive means A is better (swapped for "lower")."""
    ci = entry["numbers"]["diff_ci"]
    if entry["direction"] == "higher" or ci["low"] is None or ci["high"] is None:
        return ci["low"], ci["high"]
    return -ci["high"], -ci["low"]


def _quantity(entry: Mapping[str, Any], kind: str, quantity: str | None,
              ) -> tuple[float | None, float | None, float | None, int | None]:
    """Value, interval and n of the cited report entry.

    ``verify`` entries: ``improvement`` (mean of A minus mean of B, oriented so that positive
    means A is better whatever the metric's direction, with the Welch interval turned the same
    way), ``diff`` (the raw mean_a - mean_b, negative when A's loss is lower), ``prob_improvement``
    and ``hedges_g`` (both oriented). ``aggregate`` entries: ``mean`` (Student-t interval),
    ``median``, ``sd``, ``se``, ``iqm`` (bootstrap interval) and ``distance_to_reference``.
    """
    if kind == "aggregate":
        name = quantity or "mean"
        if name in ("mean", "median", "sd", "se", "iqm"):
            interval = entry["ci"] if name == "mean" else \
                entry["intervals"]["iqm"]["bca"] if name == "iqm" else None
            low = interval["low"] if interval else None
            high = interval["high"] if interval else None
            return entry[name], low, high, entry["n"]
        if name == "distance_to_reference" and entry.get("reference"):
            ref = entry["reference"]
            return abs(ref["mean_minus_reference"]), None, ref.get("ci_max_distance"), entry["n"]
    elif kind == "verify":
        numbers = entry["numbers"]
        name = quantity or "diff"
        # seeds of the sides that vary with the seed: a fixed value or a published number has none
        seeded = [numbers[f"n_{side}"] for side in ("a", "b")
                  if not (entry[side].get("fixed") or entry[side].get("reference"))]
        n = min(seeded) if seeded else None
        if name == "improvement":
            low, high = _oriented_interval(entry)
            return numbers["improvement"], low, high, n
        if name == "diff":
            return numbers["diff"], numbers["diff_ci"]["low"], numbers["diff_ci"]["high"], n
        if name == "prob_improvement":
            ci = numbers["prob_improvement_ci"]
            return numbers["prob_improvement"], ci["low"], ci["high"], n
        if name == "hedges_g":
            return numbers["hedges_g"], None, None, n
    elif kind == "reference":
        if (quantity or "value") == "value":
            interval = entry.get("interval") or (None, None)
            return entry["value"], interval[0], interval[1], entry.get("n")
    elif kind == "expected_max":
        name = quantity or f"expected@{entry['n_trials']}"
        if name.startswith("expected@"):
            k = int(name.split("@", 1)[1]) if name.split("@", 1)[1].isdigit() else -1
            row = next((r for r in entry["table"] if r["k"] == k), None)
            if row is not None:
                return row["expected"], None, None, entry["n_trials"]
            raise EvidenceError(f"quantity {quantity!r} is not available: the expected_max entry has "
                                f"k = 1..{entry['n_trials']}")
    article = "an" if kind[0] in "aeiou" else "a"
    raise EvidenceError(f"quantity {quantity!r} is not available for {article} {kind} entry; valid "
                        f"quantities: {', '.join(QUANTITIES.get(kind, ()))}")


def _ci_method(entry: Mapping[str, Any], kind: str, quantity: str | None) -> str | None:
    """The method of the interval a claim states ("welch-t", "student-t", ...), for its caption."""
    if kind == "verify" and (quantity or "diff") in ("diff", "improvement"):
        return str(entry["numbers"]["diff_ci"]["method"])
    if kind == "verify" and quantity == "prob_improvement":
        return str(entry["numbers"]["prob_improvement_ci"]["method"])
    if kind == "aggregate" and (quantity or "mean") == "mean":
        return str(entry["ci"]["method"])
    if kind == "aggregate" and quantity == "iqm":
        return str(entry["intervals"]["iqm"]["bca"]["method"])
    return None


def _float(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and not math.isfinite(value)) \
        else float(value)


def _predicate(predicate: Mapping[str, Any] | None, resolved: Mapping[str, Any]) -> dict[str, Any] | None:
    if not predicate:
        return None
    kind = predicate["kind"]
    if kind == "classification":
        wanted = predicate["equals"]
        actual = resolved.get("classification")
        ok = actual == wanted
        if ok and wanted == "effect" and resolved.get("direction_matches_claim") is False:
            ok = False
        return {"holds": ok, "detail": f"classification is {actual!r}, the claim needs {wanted!r}"}
    of = predicate.get("of", "value")
    subject = {"value": resolved["value"], "ci_low": resolved["ci_low"],
               "ci_high": resolved["ci_high"]}[of]
    if subject is None:
        return {"holds": False, "detail": f"{of} is undefined"}
    if kind in ("greater_than", "less_than"):
        bound = float(predicate["value"])
        ok = subject > bound if kind == "greater_than" else subject < bound
        sign = ">" if kind == "greater_than" else "<"
        return {"holds": ok, "detail": f"{of} = {subject:.6g} {sign} {bound:g} is {ok}"}
    if kind == "within":
        target, tolerance = float(predicate["target"]), float(predicate["tolerance"])
        ok = abs(subject - target) <= tolerance
        return {"holds": ok, "detail": f"|{of} - {target:g}| = {abs(subject - target):.6g} "
                f"{'<=' if ok else '>'} {tolerance:g}"}
    raise EvidenceError(f"unknown predicate kind {kind!r}")


@dataclass(frozen=True)
class Support:
    """Whether a claim is supported, what decided it, and why in two registers.

    ``why`` names the verify entry and its label (for DISCLOSURES.md, where a reviewer looks them
    up); ``why_reader`` says the same in the paper's words, with the numbers a reader sees.
    """

    supported: bool
    decided_by: str | None = None
    why: str | None = None
    why_reader: str | None = None


def _interval_words(entry: Mapping[str, Any], fmt: Format) -> tuple[str, str]:
    """The improvement (A better > 0) and its interval in the claim's format, with the method:
    ("+0.6 points", "95% CI [-0.0, +1.1] points, Welch t")."""
    from evidence.verify.stats import METHOD_NAMES  # scipy behind it: only while resolving

    numbers = entry["numbers"]
    low, high = _oriented_interval(entry)
    value = fmt.render(_float(numbers.get("improvement")), signed=True)
    ci = numbers["diff_ci"]
    if low is None or high is None:
        return value, f"no defined interval ({ci.get('note') or 'undefined'})"
    method = METHOD_NAMES.get(str(ci["method"]), str(ci["method"]))
    shown = fmt.render_interval(_float(low), _float(high), signed=True)
    return value, f"{100 * float(ci['confidence']):g}% CI {shown} ({method})"


def _failed_guards(entry: Mapping[str, Any]) -> str:
    """The details of the failed guards (not of the evidence checks, such as an interval that
    includes zero, which are no sanity check)."""
    failed = [c for c in entry.get("checks") or [] if c.get("passed") is False
              and c.get("name") in _GUARD_WORDS]
    return "; ".join(f"{c['detail']}" for c in failed) or str(entry.get("reason") or "a sanity check failed")


#: What each guard found, in the paper's words: no run labels, group names or check names
#: (the details, which name them, stay in DISCLOSURES.md and the verify report).
_GUARD_WORDS = {
    "finite_metrics": "a metric is not a finite number",
    "metric_in_range": "a metric lies outside its possible range",
    "seed_applied": "every seed gives bit-identical results, so the seed does not reach the model",
    "deterministic_agrees": "a variant declared deterministic gives different results for different seeds",
    "beats_shuffled_control": "the model does not beat the same model trained on shuffled labels",
    "control_at_chance": "the shuffled-label control scores well above chance",
    "prediction_diversity": "the predictions are (nearly) constant",
    "train_test_gap": "a model scores better on the test split than on the training split by more "
                      "than is plausible (possible leakage)",
    "perfect_score": "a test score is perfect (possible leakage)",
    "initial_loss": "the loss before training is far from the chance loss",
}


def _failed_guards_reader(entry: Mapping[str, Any]) -> str:
    """The failed guards for the paper: what went wrong, without the labels that name it."""
    failed = [str(c.get("name")) for c in entry.get("checks") or [] if c.get("passed") is False]
    words = list(dict.fromkeys(_GUARD_WORDS[name] for name in failed if name in _GUARD_WORDS))
    return "; ".join(words) or "a check of the runs failed"


def _seeds_tail(entry: Mapping[str, Any]) -> str:
    """"; about 36 seeds ... would be needed": per group for two seeded groups; against a fixed or
    published value only the seeded side varies, so the number is that side's seeds."""
    needed = entry.get("seeds_needed")
    if not needed:
        return ""
    test = (entry.get("numbers") or {}).get("test")
    if test in ("one-sample-t", "welch-summary"):
        seeded = next((side["name"] for side in (entry["a"], entry["b"])
                       if not side.get("fixed") and not side.get("reference")), None)
        of = f" of {seeded}" if seeded else ""
        return f"; about {needed} seeds{of} would be needed (an estimate from these seeds)"
    return f"; about {needed} seeds per group would be needed (an estimate from these seeds)"


def _comparison_support(entry: Mapping[str, Any], ref: str, predicate: Mapping[str, Any] | None,
                        fmt: Format) -> Support | None:
    """The gate a claim on a comparison must pass before its predicate counts; None: passed.

    A claim that rests on a comparison is supported only by ``effect`` in the claimed direction
    (``noise`` for an equivalence claim, one whose predicate asks for noise); a suspected bug or
    insufficient evidence never supports it, whatever its predicate says.
    """
    label = entry.get("class")
    a, b = entry["a"]["name"], entry["b"]["name"]
    equivalence = predicate is not None and predicate.get("kind") == "classification" \
        and predicate.get("equals") == "noise"
    value, interval = _interval_words(entry, fmt)
    margin = entry.get("equivalence_margin")
    margin_words = f"+/-{fmt.render(margin)}" if margin is not None else None
    if label == "suspected_bug":
        guards = _failed_guards(entry)
        return Support(False, "guard",
                       f"verify classified {ref} as suspected_bug, which supports no claim whatever its "
                       f"predicate: {guards}",
                       f"a sanity check on the runs failed ({_failed_guards_reader(entry)}), so the "
                       "difference is not evidence either way")
    if label == "insufficient_evidence":
        if equivalence:
            why_margin = (f", and nothing shows it lies within the declared margin {margin_words}"
                          if margin_words else ", and no margin is declared within which it would be "
                          "negligible, so its absence cannot be shown")
        else:
            why_margin = ", so no difference is shown"
        # an undefined interval includes nothing: say only that it is undefined
        shown = f"has {interval}" if interval.startswith("no defined interval") \
            else f"has {interval}, which includes zero"
        return Support(False, "margin" if equivalence else "interval",
                       f"the improvement of {a} over {b}, {value}, {shown}{why_margin}; verify "
                       f"classified {ref} as insufficient_evidence, which supports no claim"
                       f"{_seeds_tail(entry)}",
                       f"the difference, {value}, {shown}{why_margin if equivalence else ''}: the "
                       f"data show neither a difference nor its absence{_seeds_tail(entry)}")
    if equivalence and label == "effect":
        return Support(False, "interval",
                       f"the improvement of {a} over {b}, {value}, has {interval}, which excludes "
                       f"zero: verify classified {ref} as effect, a difference, not its absence",
                       f"the difference, {value}, has {interval}, which excludes zero: the data "
                       "show a difference, not its absence")
    if not equivalence and label == "noise":
        inner = f"{100 * (2 * float(entry.get('confidence', 0.95)) - 1):g}%"
        shown = (f"lies within the declared margin {margin_words}: its {inner} interval is inside "
                 "the margin (an equivalence test)")
        return Support(False, "margin",
                       f"the improvement of {a} over {b}, {value}, {shown}, so verify classified {ref} "
                       "as noise, the absence of the claimed difference",
                       f"the difference, {value}, {shown}, the smallest difference declared to "
                       "matter: the data show the claimed difference is absent")
    if not equivalence and label == "effect" and entry.get("direction_matches_claim") is False:
        claimed = entry.get("claimed")
        better, worse = (a, b) if claimed == "a_better" else (b, a)
        winner, loser = (a, b) if (_float(entry["numbers"].get("improvement")) or 0) > 0 else (b, a)
        return Support(False, "direction",
                       f"the direction is the opposite of the claim: the claim says {better} is "
                       f"better than {worse}, but {winner} is better than {loser} (difference "
                       f"{value} for {a} over {b}, {interval}, which excludes zero; verify:"
                       f"{entry['id']} is an effect against the claim)",
                       f"the data show the opposite direction: {winner} is better than {loser} "
                       f"(difference {value} for {a} over {b}, {interval})")
    return None


def support(claim: Mapping[str, Any], resolved: Mapping[str, Any], entry: Mapping[str, Any],
            kind: str) -> Support:
    """Whether a resolved claim is supported, and the reason that decided it.

    Claims on a comparison pass :func:`_comparison_support` first; claims on an aggregate keep
    their predicates, but not on runs a guard flagged (the entry's ``class`` is
    ``suspected_bug``). Then the predicate, if any, decides.
    """
    predicate = claim.get("predicate")
    fmt = Format.from_mapping(claim.get("format"))
    reference = str(resolved["ref"])
    if kind == "verify":
        gate = _comparison_support(entry, reference, predicate, fmt)
        if gate is not None:
            return gate
    elif kind == "aggregate" and entry.get("class") == "suspected_bug":
        guards = _failed_guards(entry)
        return Support(False, "guard", f"a guard of verify flagged the runs of {reference}: {guards}",
                       f"a sanity check on the runs failed ({_failed_guards_reader(entry)}), so they "
                       "are not evidence")
    checked = resolved.get("predicate")
    if checked is not None and not checked["holds"]:
        return Support(False, "predicate", f"its predicate fails ({checked['detail']})",
                       f"its stated test fails ({checked['detail']})")
    return Support(True)


def _direction_caveat(predicate: Mapping[str, Any] | None, entry: Mapping[str, Any],
                      kind: str) -> str | None:
    """Why a claim's predicate does not back its comparison's claimed direction, or None.

    A comparison declares which way it is claimed to go (``claimed = "a_better"``); a claim on it
    whose predicate accepts ``insufficient_evidence`` or ``noise`` can "hold" while the data do not
    show that direction at all, so a sentence worded "A beats B" would pass unmarked. Such a claim
    is flagged here; the paper marks it and the disclosure names it.
    """
    if kind != "verify" or not predicate or predicate.get("kind") != "classification":
        return None
    claimed, equals = entry.get("claimed"), predicate.get("equals")
    if claimed not in ("a_better", "b_better") or equals in ("effect", "suspected_bug"):
        return None
    a, b = entry["a"]["name"], entry["b"]["name"]
    better, worse = (a, b) if claimed == "a_better" else (b, a)
    shown = "an equivalence test (a difference within the declared margin)" if equals == "noise" \
        else "evidence that shows neither a difference nor its absence"
    return (f"{better} was claimed to be better than {worse}, but this claim rests on {shown}, "
            "which does not show that direction")


def _runs_of(entry: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    if kind == "verify":
        groups = [entry["a"], entry["b"], *([entry["control"]] if entry.get("control") else [])]
        return [run for group in groups for run in group["runs"]]
    if kind == "aggregate":
        return [run for stratum in entry["strata"] for run in stratum["runs"]]
    if kind == "reference":
        return []  # a published number rests on no run of this project
    return list(entry["runs"])


def _subjects(entry: Mapping[str, Any], kind: str) -> list[str]:
    """What the claim is about, by the names the evidence gives it: a comparison's two sides
    (A, B), an aggregate's strata, an expected-max sweep's id. Reconcile finds the claim in prose
    by these names (:func:`subject_words`)."""
    if kind == "verify":
        names = [entry.get("a", {}).get("name"), entry.get("b", {}).get("name")]
        return [str(n) for n in names] if all(names) else []
    if kind == "aggregate":
        return sorted({str(s["name"]) for s in entry.get("strata", []) if s.get("name")}) or \
            [str(entry["id"])]
    return [str(entry["id"])]


def resolve_claim(claim: Mapping[str, Any], report: Mapping[str, Any]) -> dict[str, Any]:
    """One claim, resolved from the verify report."""
    from evidence.verify.reportfile import find_entry

    reference = claim["evidence"]["ref"]
    kind = reference.split(":", 1)[0]
    entry = find_entry(report, reference)
    if kind == "reference":
        citation: str | None = entry["citation"]
    else:
        cited = (entry.get("b") or {}).get("reference") if kind == "verify" else None
        citation = cited["citation"] if cited else None
    value, low, high, n = _quantity(entry, kind, claim["evidence"].get("quantity"))
    fmt = Format.from_mapping(claim.get("format"))
    signed = kind == "verify" and (claim["evidence"].get("quantity") or "diff") in ("diff", "improvement")
    resolved: dict[str, Any] = {
        "id": claim["id"], "ref": reference, "quantity": claim["evidence"].get("quantity"),
        "value": _float(value), "ci_low": _float(low), "ci_high": _float(high), "n": n,
        "classification": entry.get("class"), "reason": entry.get("reason"),
        "direction_matches_claim": entry.get("direction_matches_claim"),
        "claimed": entry.get("claimed"),
        "ci_method": _ci_method(entry, kind, claim["evidence"].get("quantity")),
        "seeds_needed": entry.get("seeds_needed"),
        "metric": entry.get("metric"), "split": entry.get("split"),
        "runs": sorted({(r["run_id"], r["results_digest"]) for r in _runs_of(entry, kind)}),
        "figures": list(claim.get("figures", [])), "tables": list(claim.get("tables", [])),
        "tolerance": float(claim.get("tolerance", 0.0)),
        "keywords": list(claim.get("keywords", [])),
        "format": {"style": fmt.style, "decimals": fmt.decimals},
        "citation": citation,
    }
    resolved["subjects"] = _subjects(entry, kind)
    resolved["prob_better"] = _float(entry["numbers"].get("prob_improvement")) if kind == "verify" else None
    prob_ci = entry["numbers"].get("prob_improvement_ci") if kind == "verify" else None
    resolved["prob_better_ci"] = [_float(prob_ci.get("low")), _float(prob_ci.get("high"))] \
        if isinstance(prob_ci, Mapping) else None
    resolved["formatted"] = fmt.render(resolved["value"], signed=signed)
    resolved["ci_formatted"] = fmt.render_interval(_float(low), _float(high), signed=signed)
    resolved["predicate"] = _predicate(claim.get("predicate"), resolved)
    verdict = support(claim, resolved, entry, kind)
    resolved["supported"] = verdict.supported
    resolved["decided_by"], resolved["why"], resolved["why_reader"] = \
        verdict.decided_by, verdict.why, verdict.why_reader
    resolved["caveat"] = _direction_caveat(claim.get("predicate"), entry, kind)
    resolved["runs"] = [{"run_id": r, "results_digest": d} for r, d in resolved["runs"]]
    resolved["statement"] = render_statement(claim["statement"], resolved)
    return resolved


def render_statement(template: str, resolved: Mapping[str, Any]) -> str:
    """The claim's sentence with its placeholders filled from the resolved values.

    ``{ci}`` names the interval's method after it ("[-0.1, +1.0] points, Welch t"), so a reader
    of "95% CI {ci}" knows which 95% interval it is.
    """
    from evidence.verify.stats import METHOD_NAMES  # scipy behind it: imported only when rendering

    method = METHOD_NAMES.get(resolved.get("ci_method") or "", "")
    ci_text = resolved["ci_formatted"] + (f", {method}" if method and resolved["ci_formatted"] != "n/a"
                                          else "")
    values = {"value": resolved["formatted"], "ci": ci_text,
              "low": resolved["ci_formatted"].strip("[]").split(", ")[0],
              "high": resolved["ci_formatted"].strip("[]").split(", ")[-1],
              "n": str(resolved["n"]), "class": str(resolved["classification"]),
              "p": "n/a", "citation": str(resolved.get("citation") or "n/a")}
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def resolve_all(project: Project) -> dict[str, Any]:
    """Every claim of EVIDENCE.json resolved; errors name the claim."""
    from evidence.verify.reportfile import load_report

    evidence = load_evidence(project)
    report = load_report(project)
    resolved = []
    for index, claim in enumerate(evidence["claims"]):
        try:
            resolved.append(resolve_claim(claim, report))
        except EvidenceError as error:
            raise BadInputError(project.evidence_file, f"claim {claim['id']!r}: {error.message}",
                                field=f"claims[{index}].evidence") from None
    return {"schema_version": 1, "title": evidence.get("title", ""), "claims": resolved}


#: Names researchers use for common model and control names, beside the name itself.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "cnn": ("convolutional network", "convolutional neural network", "convnet", "conv net",
            "convolutional model", "convolutional net", "convolutional classifier",
            "convolutional architecture"),
    "mlp": ("multilayer perceptron", "multi-layer perceptron", "perceptron", "fully connected network",
            "fully-connected network", "fully connected net", "feed-forward network", "feedforward network",
            "feed-forward net", "dense network"),
    "control": ("ctrl", "shuffled-label control", "shuffled-label model", "shuffled labels", "shuffled-label",
                "label-shuffled", "random labels", "random-label", "permuted labels", "permuted-label",
                "baseline control", "shuffled targets", "shuffled-target control", "shuffled-target model",
                "scrambled labels", "scrambled-label", "scrambled targets", "scrambled-target",
                "scrambled outcomes", "scrambled training", "permuted targets", "random targets",
                "shuffled baseline", "shuffled model", "shuffled control", "shuffled fit",
                "shuffled-target fit", "shuffled-label fit",
                # on a regression target a control learns nothing but the mean, and is named so
                "mean baseline", "mean predictor", "mean control", "predict-the-mean", "predicting the mean",
                "predicting the training mean"),
    "wide": ("wider", "wide", "widened"),
    "gbm": ("gradient boosting", "gradient-boosted trees", "gradient boosted trees", "boosted trees",
            "gradient-boosting model"),
    "xgboost": ("gradient boosting", "boosted trees"), "lightgbm": ("gradient boosting", "boosted trees"),
    "rf": ("random forest",), "forest": ("random forest",),
    "ridge": ("ridge regression", "ridge model"), "lasso": ("lasso regression",),
    "linear": ("linear model", "linear regression", "linear baseline", "least-squares baseline",
               "least-squares fit", "least squares", "ordinary least squares", "OLS", "straight-line model",
               "linear fit"),
    "logreg": ("logistic regression",), "lr": ("logistic regression",),
    "svm": ("support vector machine",), "knn": ("nearest neighbours", "nearest neighbors", "k-NN"),
    "rnn": ("recurrent network",), "lstm": ("recurrent network",),
    "transformer": ("transformers",), "resnet": ("residual network",),
    "baseline": ("the baseline",),
    "sweep": ("sweep", "tuning", "tuning budget", "search", "configurations", "configs"),
}
_METRIC_NAMES: dict[str, tuple[str, ...]] = {
    "accuracy": ("accuracy", "acc", "acc."),
    "rmse": ("rmse", "root mean squared error", "root-mean-square error"),
    "mae": ("mae", "mean absolute error"), "mse": ("mse", "mean squared error"), "r2": ("r2", "r²", "r^2"),
    "f1": ("f1", "f1 score", "f1-score"), "loss": ("loss",), "auc": ("auc", "auroc"),
}
_SPLIT_NAMES = {"test": ("test",), "val": ("validation", "val"), "train": ("training", "train")}


def subject_words(name: str) -> tuple[str, ...]:
    """The words prose may use for a variant or comparison side named ``name``: the name, its
    parts in either order ("mlp_wide": "MLP wide", "wide MLP"), and common synonyms."""
    parts = [p for p in re.split(r"[_\-\s]+", name) if p]
    words = [name, " ".join(parts)]
    if len(parts) == 2:
        words.append(f"{parts[1]} {parts[0]}")
        for a, b in ((parts[0], parts[1]), (parts[1], parts[0])):
            for alt in _SYNONYMS.get(a, ()):
                if a in ("wide",):
                    words.append(f"{alt} {b}")
    if len(parts) == 1:
        words += _SYNONYMS.get(parts[0].lower(), ())
    if any(p.lower() == "wide" for p in parts):
        words += ["width", "wider", "widened", "widening", "double width", "doubled width",
                  "doubling the width"]
    elif parts[-1].lower() in ("sweep",) or parts[0].lower() in ("sweep",):
        words += _SYNONYMS["sweep"]
    if any(p.lower() == "control" for p in parts):
        words += _SYNONYMS["control"]
    return tuple(dict.fromkeys(w for w in words if w.strip()))


#: A family's common name ("the neural network") and the model kinds it covers: it names a
#: project's subject only where that subject is the family's one member among all its subjects.
_NETWORKS = frozenset({"mlp", "cnn", "rnn", "lstm", "gru", "transformer", "resnet", "convnet", "nn"})
_FAMILIES: dict[str, frozenset[str]] = {
    "neural network": _NETWORKS, "neural net": _NETWORKS, "neural model": _NETWORKS, "network": _NETWORKS,
    "net": _NETWORKS, "the regression": frozenset({"linear", "ridge", "lasso", "ols"}),
    "tree ensemble": frozenset({"gbm", "xgboost", "lightgbm", "rf", "forest", "catboost"}),
    "linear model": frozenset({"linear", "ridge", "lasso", "logreg", "ols"}),
}


#: A variant's modifier, the dimension it changes, and the words for the variant it modifies:
#: "mlp_wide" beside "mlp" is "the wide one", and "mlp" is "the narrow MLP", "the default width".
_MODIFIERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "wide": ("width", ("narrow", "narrower", "default", "standard")),
    "deep": ("depth", ("shallow", "shallower", "default", "standard")),
    "large": ("size", ("small", "smaller", "default", "standard")),
    "big": ("size", ("small", "smaller", "default", "standard")),
    "small": ("size", ("large", "larger", "default", "standard", "full-size")),
    "tiny": ("size", ("large", "larger", "default", "standard", "full-size")),
}


def _variant_words(names: list[str]) -> dict[str, tuple[str, ...]]:
    """Words for a variant and the subject it modifies, where both are subjects of the project:
    "the wide one", "the wider model" for mlp_wide; "the narrow MLP", "the default width", "the
    narrow one" for mlp (never "default" alone: it names nothing without its noun)."""
    distinct = set(names)
    out: dict[str, list[str]] = {}
    for name in sorted(distinct):
        parts = [p for p in re.split(r"[_\-\s]+", name.lower()) if p]
        if len(parts) != 2:
            continue
        mods = [p for p in parts if p in _MODIFIERS]
        base = [p for p in parts if p not in _MODIFIERS]
        if len(mods) != 1 or len(base) != 1 or base[0] not in distinct:
            continue
        mod, (dimension, opposites) = mods[0], _MODIFIERS[mods[0]]
        comparative = {"wide": "wider", "deep": "deeper", "large": "larger", "big": "bigger",
                       "small": "smaller", "tiny": "tinier"}[mod]
        out.setdefault(name, []).extend(f"{m} {noun}" for m in (mod, comparative)
                                        for noun in ("one", "model", "network", "net", "variant"))
        out.setdefault(base[0], []).extend(
            [f"{o} {noun}" for o in opposites for noun in (base[0], "one", "model", "network", "variant")]
            + [f"{o} {dimension}" for o in opposites if o in ("default", "standard")])
    return {n: tuple(dict.fromkeys(w)) for n, w in out.items()}


def _family_words(names: list[str]) -> dict[str, tuple[str, ...]]:
    """The family names that name one subject unambiguously: "the neural network" in a project
    whose only network is the MLP (not beside a CNN, nor beside a wide MLP)."""
    distinct = sorted(set(names))
    out: dict[str, list[str]] = {}
    for word, kinds in _FAMILIES.items():
        members = [n for n in distinct if re.split(r"[_\-\s]+", n.lower())[0] in kinds
                   or n.lower() in kinds]
        if len(members) == 1 and word not in subject_words(members[0]):
            out.setdefault(members[0], []).append(word)
    return {name: tuple(words) for name, words in out.items()}


def metric_words(metric: str | None, split: str | None) -> tuple[str, ...]:
    """The metric's names, alone and with the split ("accuracy", "test accuracy")."""
    if not metric:
        return ()
    names = _METRIC_NAMES.get(metric.lower(), (metric.replace("_", " "),))
    words = list(names)
    for split_name in _SPLIT_NAMES.get(split or "", ()):
        words += [f"{split_name} {n}" for n in names]
        if metric.lower() in _ERROR_METRICS:  # "linear regression's mean test error is 57.2"
            words += [f"{split_name} error", f"mean {split_name} error", f"{split_name}-set error"]
    return tuple(dict.fromkeys(words))


#: Metrics that prose calls an error of the split they were measured on ("the test error"); "error"
#: alone is not theirs (a standard error, an error rate).
_ERROR_METRICS = frozenset({"rmse", "mae", "mse"})


def claim_quantities(resolved: Mapping[str, Any]) -> list[ClaimQuantity]:
    """What reconcile checks documents against: every claim with a value, with every quantity it
    states (interval, n, seeds needed, P(better)) and the words of its subjects and metric,
    derived from the evidence; ``keywords`` add to them."""
    quantities = []
    family = _family_words([n for c in resolved["claims"] for n in (c.get("subjects") or [])])
    variants = _variant_words([n for c in resolved["claims"] for n in (c.get("subjects") or [])])
    for name, words in variants.items():
        family[name] = (*family.get(name, ()), *words)
    for claim in resolved["claims"]:
        if claim["value"] is None:
            continue
        fmt = Format.from_mapping(claim["format"])
        kind = str(claim["ref"]).split(":", 1)[0]
        quantity = claim.get("quantity")
        comparison = kind == "verify" and (quantity or "diff") in ("diff", "improvement")
        names = claim.get("subjects") or []
        subjects = (tuple((*subject_words(n), *family.get(n, ())) for n in names[:2]) if comparison
                    else (tuple(w for n in names for w in (*subject_words(n), *family.get(n, ()))),)
                    if names else ())
        if kind == "expected_max":  # whatever the sweep is called, prose names what is computed
            subjects = (tuple(dict.fromkeys((*(subjects[0] if subjects else ()), *_EXPECTED_MAX_WORDS))),)
        quantities.append(ClaimQuantity(
            id=claim["id"], value=claim["value"], format=fmt.number_format,
            keywords=tuple(claim["keywords"]), ci_low=claim["ci_low"],
            ci_high=claim["ci_high"], n=claim["n"] if kind != "expected_max" else None,
            seeds_needed=claim.get("seeds_needed") if claim.get("classification") != "effect" else None,
            prob_better=claim.get("prob_better") if comparison else None,
            prob_low=(claim.get("prob_better_ci") or [None, None])[0] if comparison else None,
            prob_high=(claim.get("prob_better_ci") or [None, None])[1] if comparison else None,
            subjects=subjects, metric=metric_words(claim.get("metric"), claim.get("split")),
            comparison=comparison, classification=claim.get("classification"),
            supported=claim.get("supported"), claimed=claim.get("claimed"),
            points=fmt.style == "points", split=claim.get("split"),
            budget=_budget(quantity) if kind == "expected_max" else None,
            configurations=claim["n"] if kind == "expected_max" else None,
            improvement=comparison and quantity == "improvement",
            lower_better=bool(_LOWER_BETTER.search(str(claim.get("metric") or ""))),
            verify_name=str(claim["ref"]).split(":", 1)[1] if kind == "verify" else None))
    return quantities


#: Metrics that are better when lower: "1.3 higher" RMSE is worse, "1.3 higher" accuracy better.
_LOWER_BETTER = re.compile(r"\b(?:rmse|mse|mae|loss|nll|error|err|perplexity|ece|latency|runtime|wer|cer)\b",
                           re.I)


#: What prose calls an expected-max claim's quantity, whatever its sweep is named (Dodge et al.'s
#: "expected validation performance": "the expected best validation accuracy with 4 trials").
_EXPECTED_MAX_WORDS = ("expected best", "expected maximum", "expected max", "expected validation performance",
                       "best validation", "best-of-k", "random search", "hyper-parameter search",
                       "hyperparameter search", "grid search", "grid points", "tuning", "sweep")


def _budget(quantity: str | None) -> int | None:
    """``expected@4`` -> 4: the number of configurations an expected-max claim is about."""
    m = re.fullmatch(r"expected@(\d+)", quantity or "")
    return int(m.group(1)) if m else None


def claims_path(project: Project) -> Path:
    return project.claims_dir / "claims.json"
