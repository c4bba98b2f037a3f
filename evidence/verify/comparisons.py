"""``comparisons.toml``: what ``doit verify`` checks, declared once by selection.

The file (schema ``comparisons``) lives at the project root and has three kinds of entries:

* ``[[comparison]]``: A vs B on one metric and split (``a``, ``b``, optional ``control``: the
  shuffled-label control runs A must beat), the claimed direction and the statistical
  settings (``min_seeds`` 5, ``confidence`` 0.95 by default; ``n_resamples`` is accepted but
  unused: P(A better) has a score interval, which does not resample), the
  optional ``equivalence_margin`` (the smallest difference that matters, in the metric's unit:
  without one a comparison is never called noise, because only an equivalence test against a
  declared margin can show a difference is negligible) and optional ``thresholds`` overrides;
* ``[[reference]]``: a published number (``value`` in the metric's unit, a ``citation``, and
  optionally its spread: ``sd`` and ``n``, or an ``interval`` with its ``confidence`` and ``n``).
  A comparison names it as ``b = { reference = "<id>" }``: against a value alone the seeded
  side is compared by the one-sample t-test, against a value with its spread by Welch's test
  from summary statistics. Claims cite it as ``reference:<id>``, so the number and its citation
  come from this file and are never typed into the paper;
* ``[thresholds]``: the project's :class:`evidence.verify.classify.Thresholds`;
* ``[[aggregate]]``: one metric over seeds with intervals; ``selection`` may be a list of
  selections (strata, e.g. datasets); optional ``reference`` (a number, ``"chance"`` for
  accuracy or loss, ``"baseline"`` for any metric: predicting the training mean) to measure the
  interval against;
* ``[[expected_max]]``: expected validation performance over a hyperparameter grid.

Runs are named by selections (:class:`evidence.experiments.select.Selection`), never by run id, so adding a
seed or retraining changes the evidence without touching this file. Everything that can be
checked before a run exists is checked here, at task-creation time, so a typo is doit's
one-line exit-3 error naming the file and the field, not a failure after an hour of training.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.core.schema import read_toml, validate
from evidence.experiments.select import SPEC_FILTERS, Selection, specs_of
from evidence.verify.thresholds import DEFAULT_THRESHOLDS, Thresholds

#: Which way a comparison is claimed to go (the same values as :data:`evidence.verify.classify.Claim`).
Claim = Literal["a_better", "b_better", "differ"]

COMPARISONS_FILE = "comparisons.toml"
#: Metrics whose chance level the runs' diagnostics give (1/n_classes, the chance loss log K).
CHANCE_METRICS = ("accuracy", "loss")


@dataclass(frozen=True)
class Named:
    """A selection, the name reasons and the summary use for it, and its field in the file."""

    name: str
    selection: Selection
    field: str


@dataclass(frozen=True)
class ReferenceEntry:
    """A published number: its value (the metric's unit), citation and, if given, its spread."""

    id: str
    name: str
    value: float
    citation: str
    description: str
    field: str
    sd: float | None = None
    n: int | None = None
    interval: tuple[float, float] | None = None
    confidence: float = 0.95
    url: str | None = None

    @property
    def has_spread(self) -> bool:
        """Whether the paper gives the spread that Welch's test needs (sd and n, or an interval)."""
        return (self.sd is not None and self.n is not None) or self.interval is not None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "value": self.value, "citation": self.citation,
                "description": self.description, "sd": self.sd, "n": self.n,
                "interval": list(self.interval) if self.interval else None,
                "confidence": self.confidence, "url": self.url}


@dataclass(frozen=True)
class ComparisonEntry:
    id: str
    description: str
    a: Named
    b: Named | None  # None: B is the published number ``reference``
    control: Named | None
    metric: str
    split: str
    claimed: Claim
    min_seeds: int
    confidence: float
    n_resamples: int
    field: str
    equivalence_margin: float | None = None
    thresholds: Thresholds = DEFAULT_THRESHOLDS
    reference: ReferenceEntry | None = None

    @property
    def b_name(self) -> str:
        """How reasons name B: its selection's name, or the reference's."""
        if self.b is not None:
            return self.b.name
        assert self.reference is not None  # parse_config sets one of the two
        return self.reference.name


@dataclass(frozen=True)
class AggregateEntry:
    id: str
    description: str
    strata: tuple[Named, ...]
    stratified: bool
    metric: str
    split: str
    confidence: float
    n_resamples: int
    reference: float | str | None
    field: str


@dataclass(frozen=True)
class ExpectedMaxEntry:
    id: str
    description: str
    selection: Named
    metric: str | None
    split: str
    field: str


@dataclass(frozen=True)
class VerifyConfig:
    """A parsed, validated comparisons.toml."""

    source: str
    comparisons: tuple[ComparisonEntry, ...]
    aggregates: tuple[AggregateEntry, ...]
    expected_max: tuple[ExpectedMaxEntry, ...]
    references: tuple[ReferenceEntry, ...] = ()

    def named(self) -> list[Named]:
        """Every selection the file makes, in file order."""
        out: list[Named] = []
        for c in self.comparisons:
            out += [c.a, *([c.b] if c.b else []), *([c.control] if c.control else [])]
        for a in self.aggregates:
            out += a.strata
        out += [e.selection for e in self.expected_max]
        return out


def _default_name(selection: Selection) -> str:
    """``cnn`` for {group = "cnn"}: filter values (``key=value`` for config keys), else the experiment."""
    def text(value: Any) -> str:
        return "|".join(map(str, value)) if isinstance(value, tuple) else str(value)
    parts = [text(v) if k in SPEC_FILTERS else f"{k}={text(v)}" for k, v in selection.where]
    return ",".join(parts) or selection.experiment


def _named(raw: Mapping[str, Any], source: str, field: str) -> Named:
    selection = Selection.from_mapping(raw, source, field)
    return Named(str(raw.get("name") or _default_name(selection)), selection, field)


def parse_config(raw: Mapping[str, Any], source: str, *, check_schema: bool = True) -> VerifyConfig:
    """Validate a parsed comparisons.toml (schema, unique ids) and apply the defaults."""
    if check_schema:
        validate(raw, "comparisons", source)
    project_thresholds = Thresholds.from_mapping(raw.get("thresholds", {}))
    references = {r.id: r for r in _references(raw.get("reference", []), source)}
    comparisons = []
    for i, c in enumerate(raw.get("comparison", [])):
        f = f"comparison[{i}]"
        margin = c.get("equivalence_margin")
        cited = c["b"].get("reference") if isinstance(c["b"], Mapping) else None
        if cited is not None and cited not in references:
            raise BadInputError(source, f"no [[reference]] has the id {cited!r} (known: "
                                f"{', '.join(sorted(references)) or 'none'})", field=f"{f}.b.reference")
        comparisons.append(ComparisonEntry(
            id=c["id"], description=c.get("description", ""), a=_named(c["a"], source, f"{f}.a"),
            b=None if cited is not None else _named(c["b"], source, f"{f}.b"),
            reference=references.get(cited) if cited is not None else None,
            control=_named(c["control"], source, f"{f}.control") if "control" in c else None,
            metric=c["metric"], split=c.get("split", "test"), claimed=cast(Claim, c["claimed"]),
            min_seeds=c.get("min_seeds", 5), confidence=float(c.get("confidence", 0.95)),
            n_resamples=c.get("n_resamples", 10_000), field=f,
            equivalence_margin=None if margin is None else float(margin),
            thresholds=Thresholds.from_mapping(c.get("thresholds", {}), project_thresholds)))
    aggregates = []
    for i, g in enumerate(raw.get("aggregate", [])):
        f = f"aggregate[{i}]"
        listed = isinstance(g["selection"], list)
        strata = tuple(_named(s, source, f"{f}.selection[{j}]")
                       for j, s in enumerate(g["selection"])) if listed \
            else (_named(g["selection"], source, f"{f}.selection"),)
        names = [s.name for s in strata]
        for j, name in enumerate(names):
            if name in names[:j]:
                raise BadInputError(source, f"two strata are both named {name!r}; give them distinct "
                                    "names (name = ...)", field=f"{f}.selection[{j}].name")
        reference = g.get("reference")
        if reference == "chance" and g["metric"] not in CHANCE_METRICS:
            raise BadInputError(source, f"reference = \"chance\" applies only to the metrics "
                                f"{' and '.join(CHANCE_METRICS)} (chance accuracy 1/K, chance loss "
                                f"log K), not to {g['metric']!r}; use reference = \"baseline\" (the "
                                "score of predicting the training mean) or a number",
                                field=f"{f}.reference")
        aggregates.append(AggregateEntry(
            id=g["id"], description=g.get("description", ""), strata=strata, stratified=listed,
            metric=g["metric"], split=g.get("split", "test"),
            confidence=float(g.get("confidence", 0.95)), n_resamples=g.get("n_resamples", 10_000),
            reference=g.get("reference"), field=f))
    expected = [ExpectedMaxEntry(id=e["id"], description=e.get("description", ""),
                                 selection=_named(e["selection"], source, f"expected_max[{i}].selection"),
                                 metric=e.get("metric"), split=e.get("split", "val"),
                                 field=f"expected_max[{i}]")
                for i, e in enumerate(raw.get("expected_max", []))]
    for entries in (comparisons, aggregates, expected, list(references.values())):
        seen: set[str] = set()
        for entry in entries:
            if entry.id in seen:
                raise BadInputError(source, f"the id {entry.id!r} is used twice", field=f"{entry.field}.id")
            seen.add(entry.id)
    return VerifyConfig(source, tuple(comparisons), tuple(aggregates), tuple(expected),
                        tuple(references.values()))


def _references(raw: list[Mapping[str, Any]], source: str) -> list[ReferenceEntry]:
    """``[[reference]]`` entries; beyond the schema: an interval that holds its value, unique ids."""
    out: list[ReferenceEntry] = []
    seen: set[str] = set()
    for i, r in enumerate(raw):
        f = f"reference[{i}]"
        if r["id"] in seen:
            raise BadInputError(source, f"the id {r['id']!r} is used twice", field=f"{f}.id")
        seen.add(r["id"])
        interval = r.get("interval")
        value = float(r["value"])
        if r.get("sd") is not None and int(r["n"]) < 2:
            raise BadInputError(source, "a published sd needs the n (>= 2) of runs it was measured "
                                "over", field=f"{f}.n")
        if interval is not None and not float(interval[0]) <= value <= float(interval[1]):
            raise BadInputError(source, f"the interval [{interval[0]}, {interval[1]}] does not contain "
                                f"the value {value}; give [low, high] of the published interval",
                                field=f"{f}.interval")
        out.append(ReferenceEntry(
            id=r["id"], name=str(r.get("name") or r["id"]), value=value, citation=r["citation"],
            description=r.get("description", ""), field=f,
            sd=None if r.get("sd") is None else float(r["sd"]), n=r.get("n"),
            interval=None if interval is None else (float(interval[0]), float(interval[1])),
            confidence=float(r.get("confidence", 0.95)), url=r.get("url")))
    return out


def comparisons_path(project: Project) -> Path:
    return project.root / COMPARISONS_FILE


def load_config(project: Project) -> VerifyConfig | None:
    """Parse and check ``comparisons.toml`` against the project; None when there is none.

    Beyond the schema: every experiment exists, every selection matches at least one run spec,
    and A, B and the control select disjoint runs (comparing a run with itself is a typo).
    Errors name the file and the field.
    """
    path = comparisons_path(project)
    if not path.is_file():
        return None
    from evidence.core import memo

    source = str(path)

    def parse() -> dict[str, Any] | None:
        raw = read_toml(path)
        if raw is not None:
            validate(raw, "comparisons", source)
        return raw

    raw = memo.validated(project, path, "comparisons", parse)
    if raw is None:
        return None
    config = parse_config(raw, source, check_schema=False)
    keys: dict[Named, set[str]] = {}
    for named in config.named():
        experiment = named.selection.experiment
        matched = {s.key for s in specs_of(project, experiment, source=source)
                   if named.selection.matches(s)}
        if not matched:
            raise BadInputError(source, f"the filters {named.selection.to_dict()['where']} match no "
                                f"run of experiment {experiment!r}", field=f"{named.field}.where")
        keys[named] = matched
    for c in config.comparisons:
        for other in (c.b, c.control):
            if other is None:
                continue
            if keys[c.a] & keys[other]:
                raise BadInputError(source, f"{other.field.rsplit('.', 1)[1]} selects some of the same "
                                    "runs as a", field=other.field)
    return config
