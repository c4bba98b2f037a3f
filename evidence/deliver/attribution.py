"""Which claim a number in a sentence states, and which of its quantities: the attribution rules.

Per segment (a sentence, a heading, a table row), the words of every claim are found: its
subjects (derived from the evidence: the variants it measures or compares), its metric, its
``keywords``. Where two subject names overlap ("wide MLP" and "MLP") the longer wins. A claim is
*eligible* for a number in the segment when all its keywords occur (the explicit rule), or its
subject does (a measurement), or both of its sides do, or one side and a word of comparison (a
difference: "by", "lead", "gap"...). The number's role (a point value, an interval end, a count
of seeds, a seeds-needed estimate, a probability; :mod:`evidence.deliver.statements`) picks the
quantity; its shape (a percentage, points, a fraction, a plain number) must fit it. Among the
eligible claims the number goes to the one whose magnitude fits, then whose words are most
specific, then nearest ("respectively" pairs the n-th subject with the n-th number). A number
whose nearest metric word names another metric (a test loss beside an accuracy), or whose
table column does, states no claim of this metric.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise

from evidence.deliver.prose import Cell, Segment
from evidence.deliver.quantities import ClaimQuantity, Quantity, half_unit
from evidence.deliver.statements import SD_WORDS, SE_WORDS, Token

#: Words of comparison that let a difference be stated with one side named ("its lead is ...").
DIFF_CUE = re.compile(r"\b(?:by|lead|leads|gap|margin|difference|differs?|diff|improv\w*|gain\w*|ahead|"
                      r"higher|lower|better|worse|beats?|outperform\w*|advantage|over|than|versus|vs\.?|"
                      r"drop\w*|loses?|trails?|behind|change[sd]?|changing|delta|Δ|increase[sd]?|"
                      r"decrease[sd]?|edge|wins?|winning|loses|lowers|lowered|lowering|reduc\w*|"
                      r"shaves?|shaved|cuts?|saves?|saved|beating|won|lost|takes?|took)\b|Δ", re.I)
#: A side's change named as a noun before its number: "the GBM's improvement is 9.17", "the
#: interval of the MLP's gain runs from 0.2 to 2.5".
_CHANGE_NOUN_BEFORE = re.compile(r"(?:'s|\bits|\btheir)\s+(?:\w+\s+)?(?:improvement|gain|lead|advantage|edge"
                                 r"|margin|reduction)\b(?:\s+(?:in|of)\s+(?:test\s+)?\w+)?"
                                 r"[^.;:]{0,60}?(?:\bis|\bwas|=|:|\bruns\s+from|\bfrom|\bof)\s*(?:about\s+|~\s*)?$",
                                 re.I)
#: Words just before a number that make it a difference ("by 0.6", "a lead of 0.6", "gap: 0.6").
LOCAL_DIFF_CUE = re.compile(r"\b(?:by|lead|leads|gap|margin|difference|differs?|diff|improv\w*|gains?|ahead|"
                            r"advantage|delta|drops?|dropped|change[sd]?|changing|increase[sd]?|decrease[sd]?|"
                            r"reduc\w*|edge|beats?|beating|outperform\w*|trails?|behind|loses?|lost|wins?|won"
                            r"|saves?|saved|shaves?|cuts?)\b|Δ",
                            re.I)
#: Names of metrics: a number whose nearest metric word is not the claim's does not state it
#: ("R2.3", numbering a reviewer's third point, is no R²).
METRIC_WORDS = re.compile(
    r"\b(?:accuracy|acc\.?|error(?: rate)?|err\.?\s+rate|misclassif(?:ies|ied|y|ying|ication(?: rate)?)"
    r"|loss|nll|"
    r"cross[- ]entropy|f1(?:[- ]score)?|auc|auroc|auprc|"
    r"precision|recall|mse|rmse|mae|r2(?!\.\d)|r²|perplexity|bleu|rouge|ece|calibration|runtime|latency|"
    r"throughput|memory|params|parameters|flops|cost|std|sd|standard deviation|variance|"
    r"wall[- ]clock|time|seconds|hours|spearman|pearson|correlation|iou|map|hedges(?:'|’)?\s*g"
    r"|cohen(?:'|’)?s\s*d|effect size|z-score|quantiles?|degrees of freedom"
    r"|t[- ](?:value|statistic))\b", re.I)
_SPLIT_WORDS = {"test": re.compile(r"\b(?:validation|val|train|training|dev)\b(?!\s+(?:set|split)\s+"
                                   r"(?:of|was|is))"
                                   # "its RMSE on the validation split is 57.2": where it was measured
                                   r"|(?<=\bon the )(?:validation|val|dev)\b"
                                   r"(?=\s+(?:set|split)\s+(?:was|is)\b)",
                                   re.I),
                "val": re.compile(r"\btest\b(?!\s+(?:split|set)\b)", re.I)}
_OWN_SPLIT = {"test": re.compile(r"\btest\b", re.I), "val": re.compile(r"\b(?:validation|val)\b", re.I)}
#: A table row or column that holds settings, not results ("learning rate", "epochs", "hidden units").
SETTING_HEADER = re.compile(
    r"^\W*(?:dropout|weight[ -]decay|momentum|learning[ -]rate|lr|warm-?up|label smoothing|batch[ -]size"
    r"|epochs?|alpha|α|threshold|tolerance|temperature|beta|gamma|lambda|decay|patience|width|depth"
    r"|hidden(?: units| size| layers?)?|layers?|channels|kernel(?: size)?|stride|optimi[sz]er"
    r"|features|parameters|params|steps|iterations|test share|test size|progress|status|done|due|eta)\b",
    re.I)
_CLAUSE = re.compile(r"[,;:(]|\b(?:but|while|whereas|and|or|than|versus|vs|compared)\b")
_CLAUSE_PENALTY = 10_000


@lru_cache(maxsize=4096)
def word_regex(keyword: str) -> re.Pattern[str]:
    """Case-insensitive, whole-word-ish: "CNN" matches "CNNs" and "CNN's", not "CNNLayer"."""
    words = r"[\s_-]+".join(re.escape(w) for w in keyword.split())
    return re.compile(rf"(?<!\w){words}(?:s|es|'s|’s)?(?![\w])", re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    subject: str  # the subject's canonical name (its first word alternative)
    words: str


_PAIRS: dict[tuple[int, ...], tuple[Sequence[ClaimQuantity], tuple[tuple[str, str], ...]]] = {}


def _subject_pairs(claims: Sequence[ClaimQuantity]) -> tuple[tuple[str, str], ...]:
    """Every (subject, name of it) the claims know, sorted: computed once per list of claims, not per
    sentence (a document asks for its subjects thousands of times). Keyed by the claims' identity,
    which the entry keeps alive; hashing the claims themselves cost as much as the set."""
    key = tuple(map(id, claims))
    hit = _PAIRS.get(key)
    if hit is None:
        if len(_PAIRS) > 64:
            _PAIRS.clear()
        hit = _PAIRS[key] = (list(claims), tuple(sorted({(g[0], w) for c in claims for g in c.subjects
                                                         for w in g})))
    return hit[1]


def subject_mentions(t: str, start: int, end: int, claims: Sequence[ClaimQuantity]) -> list[Mention]:
    """Every subject named in ``t[start:end]``, the longest name winning where names overlap."""
    pattern, owners = _subject_pattern(_subject_pairs(claims))
    if pattern is None:
        return []
    found = [Mention(m.start(), m.end(), owners[str(m.lastgroup)], m.group(0))
             for m in pattern.finditer(t, start, end)]
    # "the convolutional and dense networks": the first name shares the noun after the second
    for m in _SHARED_NOUN.finditer(t, start, end):
        named = pattern.fullmatch(f"{m.group(1)} {m.group(2)}")
        if named is not None and not any(x.start < m.end(1) and m.start(1) < x.end for x in found):
            found.append(Mention(m.start(1), m.end(1), owners[str(named.lastgroup)], m.group(1)))
    found += _contrasted_bare(t, start, end, found, pattern, owners, claims)
    found += _change_to_variant(t, start, end, found, claims)
    found.sort(key=lambda x: x.start)

    # "a linear model trained on shuffled targets" is the control: the subject it is trained on
    # names what the thing is (its own words, "linear model", are then no keyword of linear's)
    found = [Mention(m.start, m.end, found[k + 1].subject, m.words)
             if k + 1 < len(found) and found[k + 1].subject != m.subject
             and _TRAINED_ON.fullmatch(t, m.end, found[k + 1].start) else m
             for k, m in enumerate(found)]
    # "Shuffle the targets and the same linear model is 16.4 worse": the same model, shuffled, is the control
    shuffled = {owners[str(hit.lastgroup)] for words in ("shuffled targets", "shuffled labels")
                if (hit := pattern.fullmatch(words)) is not None}
    if len(shuffled) == 1:
        control = next(iter(shuffled))
        found = [Mention(m.start, m.end, control, m.words)
                 if m.subject != control
                 and _SAME_AFTER_SHUFFLING.search(t, max(start, m.start - 80), m.start)
                 else m for m in found]
    return found


def _acronym(word: str) -> bool:
    return re.fullmatch(r"[A-Za-z]{3,5}", word) is not None and not re.search(r"[aeiou]{2}", word, re.I)


@lru_cache(maxsize=64)
def _acronym_pattern(pairs: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    owners = {w.upper(): subject for subject, w in pairs if _acronym(w)}
    if not owners:
        return None, {}
    names = "|".join(sorted(owners, key=len, reverse=True))
    return re.compile(rf"(?<=[a-z])(?:{names})(?:s)?(?![a-z])"), owners


def glued_acronyms(t: str, start: int, end: int, found: list[Mention],
                    claims: Sequence[ClaimQuantity]) -> list[Mention]:
    """A subject's acronym in capitals ending a model's CamelCase name: "SmallCNN-16", "TinyMLP"."""
    pattern, owners = _acronym_pattern(_subject_pairs(claims))
    if pattern is None:
        return []
    return [Mention(m.start(), m.end(), owners[m.group(0).rstrip("s")], m.group(0))
            for m in pattern.finditer(t, start, end)
            if not any(x.start < m.end() and m.start() < x.end for x in found)]


#: A shuffling named before "the same": "Shuffle the targets and the same linear model ...".
_SAME_AFTER_SHUFFLING = re.compile(r"\b(?:shuffl(?:e|es|ed|ing)|permut(?:e|es|ed|ing)|scrambl(?:e|es|ed|ing)"
                                   r"|randomi[sz](?:e|es|ed|ing))\s+(?:the\s+|its\s+|their\s+)?"
                                   r"(?:training\s+)?(?:targets|labels|outcomes)\b[^.;:]{0,20}?\bthe\s+same\s+$",
                                   re.I)


#: Two names sharing one plural noun: "the convolutional and dense networks" (its singular after).
_SHARED_NOUN = re.compile(r"\b([A-Za-z][\w-]*)\s+(?:and|or|&)\s+(?:the\s+)?[A-Za-z][\w-]*\s+"
                          r"(network|net|model|classifier|baseline|variant)s\b", re.I)


#: Two bare words contrasted: "wide vs narrow MLP", "Wide minus narrow:", "CNN vs shuffled".
_CONTRASTED = re.compile(r"(?<![\w-])([A-Za-z][\w]*)"
                         r"(?:\s+(?:vs\.?|versus|minus|over|against)\s+|\s*[−–]\s*|\s+-\s+)"
                         r"(?:the\s+)?([A-Za-z][\w]*)(?![\w-])", re.I)
#: The nouns an adjective standing alone leaves out ("the shuffled" for "the shuffled model").
_ELIDED_NOUNS = ("model", "baseline", "control", "network", "variant")
#: Words that, standing alone, name a statistic, not a subject's adjective ("mean over the runs").
_STATISTIC_WORDS = frozenset({"mean", "median", "average", "best", "worst", "max", "min", "total"})


def _contrasted_bare(t: str, start: int, end: int, found: list[Mention], pattern: re.Pattern[str],
                     owners: dict[str, str], claims: Sequence[ClaimQuantity]) -> list[Mention]:
    """A side of a contrast named by its adjective alone: "CNN vs shuffled" (the shuffled model),
    "wide vs narrow MLP" (the wide MLP, its noun said once, after the other side), "Wide minus
    narrow" (the wide MLP against the MLP it widens: the other adjective names the plain one)."""
    def taken(a: int, b: int) -> bool:
        return any(x.start < b and a < x.end for x in found)

    def named(phrase: str) -> str | None:
        hit = pattern.fullmatch(phrase)
        return owners[str(hit.lastgroup)] if hit is not None else None

    pairs = {frozenset(g[0] for g in c.subjects[:2]) for c in claims if c.comparison and len(c.subjects) >= 2}
    out: list[Mention] = []
    for m in _CONTRASTED.finditer(t, start, end):
        words = [(m.start(1), m.end(1)), (m.start(2), m.end(2))]
        after = t[m.end(2) : m.end(2) + 30]
        nouns = [(w, named(w)) for w in re.findall(r"\s+([A-Za-z][\w-]*)", after)[:1]]
        sides: list[str | None] = []
        for k, (a, b) in enumerate(words):
            word = t[a:b]
            if named(word) is not None:
                sides.append(named(word))
                continue
            if word.lower() in _STATISTIC_WORDS:
                sides.append(None)  # "the mean over the runs": a statistic, never "the mean baseline"
                continue
            elided = [named(f"{word} {n}") for n in _ELIDED_NOUNS]
            # the noun said once, after the second side: "wide vs narrow MLP"
            shared = [named(f"{word} {n}") for n, s in nouns if s is not None] if k == 0 else []
            sides.append(next((x for x in [*shared, *elided] if x is not None), None))
        first, second = sides
        if first is not None and second is None and not nouns:
            # "Wide minus narrow": the plain thing the first side is a variant of
            plain = [s for pair in pairs if first in pair for s in pair - {first}
                     if s in first.split("_")]
            second = plain[0] if len(plain) == 1 else None
        for (a, b), side in zip(words, (first, second), strict=True):
            if side is not None and not taken(a, b):
                out.append(Mention(a, b, side, t[a:b]))
    return out


#: A size adjective in a variant's name, and the words for changing to it: its comparative, its
#: verb and the noun it measures ("wide": "going wider", "widening", "doubling the width").
_SIZE_WORDS = {"wide": ("wider", "widen", "width"), "deep": ("deeper", "deepen", "depth"),
               "large": ("larger", "enlarge", "size"), "big": ("bigger", "enlarge", "size"),
               "long": ("longer", "lengthen", "length"), "narrow": ("narrower", "narrow", "width"),
               "shallow": ("shallower", "shallow", "depth"), "small": ("smaller", "shrink", "size")}


_STOP = re.compile(r"[.;!?\n]")


def _change_to_variant(t: str, start: int, end: int, found: list[Mention],
                       claims: Sequence[ClaimQuantity]) -> list[Mention]:
    """"Going wider buys 0.4 points", "Doubling the hidden width buys half a point", "widening the
    MLP": the change from a thing to its sized variant (mlp to mlp_wide) names that comparison's two
    sides, where the sentence names neither side itself."""
    out: list[Mention] = []
    for c in claims:
        if not c.comparison or len(c.subjects) < 2:
            continue
        a, b = c.subjects[0][0], c.subjects[1][0]
        variant, base = (a, b) if a.startswith(b + "_") else (b, a) if b.startswith(a + "_") else ("", "")
        adjective = variant[len(base) + 1 :].lower()
        if adjective not in _SIZE_WORDS:
            continue
        comparative, verb, noun = _SIZE_WORDS[adjective]
        change = re.compile(
            rf"\b(?:go(?:es|ing)?|went|made|making|make)\s+(?:it\s+|the\s+\w+\s+)?(?:{adjective}|{comparative})\b"
            rf"|\b{verb}(?:s|ed|ing)?\b(?!\s+(?:than|gap|margin))"
            rf"|\b(?:doubl|increas|rais|halv|quadrupl|grow|grew)\w*\s+(?:the\s+|its\s+)?(?:\w+\s+)?{noun}\b"
            rf"|\b{noun}\s+(?:comparison|difference|gap|effect)\b"
            # "Width clearly improves accuracy": the size as what acts, the change to the variant
            rf"|\b{noun}\b(?=\s+(?:\w+ly\s+)?(?:improves|helps|hurts|matters|boosts|pays off|buys)\b)"
            r"|\b(?:going|go|goes|went|moving|move)\s+from\s+\d+\s+to\s+\d+\s+(?:hidden\s+)?(?:units|neurons|channels"
            r"|layers)\b", re.I)
        for m in change.finditer(t, start, end):
            inside = [x for x in found if x.start < m.end() and m.start() < x.end]
            if any(x.subject != variant for x in inside):
                continue
            marks = [k.end() for k in _STOP.finditer(t, max(start, m.start() - 60), m.start())]
            lo = marks[-1] if marks else m.start() - 60
            stop = _STOP.search(t, m.end(), min(end, m.end() + 60))
            hi = stop.start() if stop else m.end() + 60
            if any(x.subject in (variant, base) and lo <= x.start and x.end <= hi
                   for x in found if x not in inside):
                continue  # a side named beside it ("the MLP gets wider"): its own words decide
            for x in inside:  # "width" alone names the wide MLP; "doubling the width" the change to it
                found.remove(x)
            out += [Mention(m.start(), m.end(), side, m.group(0)) for side in (variant, base)]
        if adjective in ("wide", "deep", "large", "big", "long"):
            # "doubling the MLP", "doubling the size of the MLP": the base grown into its variant
            grown = re.compile(r"\b(?:doubl|tripl|quadrupl|enlarg)\w*\s+(?:the\s+)?"
                               r"(?:size\s+of\s+(?:the\s+)?)?$", re.I)
            for x in [x for x in found if x.subject == base and start <= x.start < end]:
                grew = grown.search(t, max(start, x.start - 40), x.start)
                if grew is None or re.match(r"\s*(?:'s|’s)", t[x.end : x.end + 3]):
                    continue  # "doubling the MLP's width" is the noun rule's
                found.remove(x)
                words = t[grew.start() : x.end]
                out += [Mention(grew.start(), x.end, side, words) for side in (variant, base)]
    return out


#: One configuration's score, no expected best over a budget: "best single cfg", "the best trial".
_SINGLE_BEST = re.compile(r"\bbest\s+(?:single\s+)?(?:cfg|config(?:uration)?|trial|run|setting|model)\b"
                          r"|\bbest\s+(?:of\s+all|overall)\b|\bsingle\s+best\b", re.I)


def _count_of_a_side(t: str, tok: Token, subject: str, mentions: list[Mention],
                     claims: Sequence[ClaimQuantity]) -> bool:
    """"The MLP was trained with three seeds" where no claim states the MLP's own result: the
    count of the comparison it is a side of. Its name must be the clause's subject, right before
    the count (not "four widths, one seed each": a sweep's design)."""
    if tok.value < 2 or any(not c.comparison and c.subjects and c.subjects[0][0] == subject for c in claims):
        return False
    before = [m for m in mentions if m.end <= tok.start and m.subject == subject]
    return bool(before) and tok.start - before[-1].end <= 40 \
        and not re.search(r"[,;:.()]", t[before[-1].end : tok.start])


def _named_as_a_change(claim: ClaimQuantity, mentions: list[Mention]) -> bool:
    """Both sides named by one phrase of change ("doubling the MLP", "going wider": the base and
    its sized variant, :func:`_change_to_variant`): the words name the comparison itself."""
    sides = {g[0] for g in claim.subjects[:2]}
    return any(a.subject != b.subject and {a.subject, b.subject} == sides
               and (a.start, a.end) == (b.start, b.end) for a in mentions for b in mentions)


#: Before a model's name: its size in units ("the 128-unit MLP", "a 64 hidden-unit MLP").
_SIZED = re.compile(r"\b\d+[\s-](?:hidden[\s-])?(?:units?|neurons?|wide|width)\s+$", re.I)
#: A column of a table of changes that holds the earlier version's numbers.
_EARLIER_COLUMN = re.compile(r"\W*(?:old|before|previous(?:ly)?|prior|earlier|was|original|draft"
                             r"|(?:first|old|previous)\s+(?:version|draft|release|submission))\W*", re.I)
_CHANGE_COLUMN = re.compile(r"\W*(?:Δ|delta|change|diff(?:erence)?|shift|moved?)\W*", re.I)
_VERSION_COLUMN = re.compile(r"\W*(?:v|version\s*)(\d+)\W*", re.I)


def _earlier_column(header: str, columns: list[str]) -> bool:
    """A column of the earlier version in a table of changes: "before", "old", or "v1" beside "v2"."""
    if _EARLIER_COLUMN.fullmatch(header):
        return True
    this = _VERSION_COLUMN.fullmatch(header)
    return this is not None and any(
        int(m.group(1)) > int(this.group(1)) for c in columns if (m := _VERSION_COLUMN.fullmatch(c)))


#: A subject set against its own number on another split: "1.3 points under its test mean".
_OWN_OTHER_SPLIT = re.compile(r"\b(?:under|below|above|over|than|from|behind|ahead\s+of)\s+(?:its|their)\s+"
                              r"(?:own\s+)?(?:test|validation|val|training|train|held-out)"
                              r"\s+(?:mean|accuracy|score|rmse|error|value|number|result)\b", re.I)
#: The first column of a table of single runs: its rows are one seed's (a run's, a fold's) values.
_PER_RUN_COLUMN = re.compile(r"\W*(?:random\s+)?(?:seeds?|runs?|trials?|folds?|replicates?|repeats?)"
                             r"(?:\s*(?:#|no\.?|id|index))?\W*", re.I)
#: The default variant named as such: "the default MLP (64 hidden units)" is the plain MLP.
_DEFAULT_NAMED = re.compile(r"\b(?:default|standard|narrow|narrower|base|baseline|original|plain|small)\b",
                            re.I)
#: A size right after the name: "MLP (128 hidden)", "MLP with 128 hidden units", "MLP, 128 units".
_SIZED_AFTER = re.compile(r"\s*(?:\(|,|with|of|at)\s*(?:width\s+|a\s+width\s+of\s+)?\d+[\s-]*"
                          r"(?:hidden\b|units?\b|neurons?\b|wide\b|channels?\b|\))", re.I)


#: Between two subjects: the first is trained on the second ("a linear model trained on shuffled
#: targets", "an MLP fitted to scrambled labels"): the second names what the thing is.
_TRAINED_ON = re.compile(r"\s+(?:(?:that\s+|which\s+)?(?:was\s+|is\s+)?)?"
                         r"(?:trained|fit|fitted|learned|learnt)\s+(?:on|to|with)\s+(?:the\s+|its\s+)?", re.I)


def sized_variants(t: str, mentions: Sequence[Mention], claims: Sequence[ClaimQuantity]) -> list[Mention]:
    """"The 128-unit MLP" where the project also has a wide MLP: a variant named by its size,
    which one unsaid. Its numbers are another subject's than the plain MLP's, none of the
    claims' (its wording still compares it: "the 128-unit MLP is equivalent to the 64-unit one")."""
    varied = {g[0] for c in claims for g in c.subjects}
    return [Mention(m.start, m.end, f"{m.subject}?", m.words)
            if (_SIZED.search(t, max(0, m.start - 24), m.start)
                or (_SIZED_AFTER.match(t, m.end)
                    and not _DEFAULT_NAMED.search(t, max(0, m.start - 12), m.end)))
            and any(v != m.subject and m.subject in v.split("_") for v in varied) else m
            for m in mentions]


def _header_subjects(header: str, claims: Sequence[ClaimQuantity]) -> set[str]:
    return {m.subject for m in subject_mentions(header, 0, len(header), claims)}


@lru_cache(maxsize=64)
def _subject_pattern(pairs: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    """One alternation of every subject name, longest first, so that "wide MLP" wins over "MLP"."""
    if not pairs:
        return None, {}
    owners: dict[str, str] = {}
    parts = []
    for n, (subject, word) in enumerate(sorted(pairs, key=lambda p: (-len(p[1]), p[1]))):
        name = f"w{n}"
        owners[name] = subject
        words = r",?[\s_-]+\(?".join(re.escape(w) for w in word.split())  # "MLP (wide)", "MLP, wide"
        parts.append(f"(?P<{name}>{words})")
    # a first-letter lookahead lets the engine skip every position no name can start at
    first = "".join(sorted({w[0].lower() for _, w in pairs} | {w[0].upper() for _, w in pairs}))
    # (not "width" in "half-width", "bandwidth": an interval's size, no subject)
    return re.compile(rf"(?<!\w)(?<!half-)(?<!half )(?=[{re.escape(first)}])(?:{'|'.join(parts)})"
                      rf"(?:s|es|'s|’s)?(?![\w])",
                      re.IGNORECASE), owners


@dataclass
class Candidate:
    claim: ClaimQuantity
    quantity: Quantity
    fraction: bool  # stated as a fraction of a percent claim (0.986 for 98.6%)
    key: tuple[float, ...]
    words: tuple[str, ...]  # the words that tied the number to the claim
    misnamed: str = ""  # the claim's number under a sibling metric's name ("test MSE 57.2")


def _gap(t: str, tok: Token, a: int, b: int) -> int:
    gap = max(a - tok.end, tok.start - b, 0)
    lo, hi = min(tok.end, b), max(tok.start, a)
    return gap + (_CLAUSE_PENALTY if lo < hi and _CLAUSE.search(t, lo, hi) else 0)


def clause_of(t: str, seg: Segment, tok: Token) -> tuple[int, int]:
    """The clause around a number: from the last clause mark before it to the next after it."""
    lo = seg.start
    for m in re.finditer(r"[,;:(]|\b(?:but|while|whereas|and|versus|vs\.?)\b", t[seg.start : tok.start]):
        lo = seg.start + m.end()
    rest = re.search(r"[,;:)]|\b(?:but|while|whereas|and)\b", t[tok.end : seg.end])
    hi = tok.end + rest.start() if rest else seg.end
    return lo, hi


#: A spread's own name (the ± words' SD and SE names, and the variance).
_SPREAD_WORD = re.compile(rf"{SD_WORDS.pattern}|{SE_WORDS.pattern}|variance", re.I)


def _foreign_metric(t: str, seg: Segment, tok: Token, claim: ClaimQuantity, header: str) -> str | None:
    """A metric word that is not the claim's, nearest the number in its clause (or its column)."""
    own = [*claim.metric, *claim.keywords]

    def is_own(word: str) -> bool:
        return any(word_regex(w).search(word) or word_regex(word.strip(".")).search(w) for w in own)

    if header:
        words = [m.group(0) for m in METRIC_WORDS.finditer(header)]
        if words and not any(is_own(w) for w in words):
            return words[0]
        if re.search(r"±|\bstd\b|\bsd\b|\bse\b|\bvariance\b", header, re.I):
            return "±"
        return None
    if not claim.metric:
        return None
    lo, hi = clause_of(t, seg, tok)
    best: tuple[int, str] | None = None
    numeric = _NUMERIC_PRECISION.search(t, seg.start, seg.end) is not None
    for m in METRIC_WORDS.finditer(t, lo, hi):
        if numeric and m.group(0).lower() == "precision":
            continue  # "Precision: the CNN result to three decimals": the number's digits, no metric
        if re.search(r"(?:±|\+/-|\bpm)\s*$", t[max(lo, m.start() - 4) : m.start()]) or (
                m.start() >= tok.end and re.search(r"±|\+/-|\\pm", t[tok.end : m.start()])
                and _SPREAD_WORD.fullmatch(m.group(0))):
            continue  # "57.204 ± 0.146 (mean ± SD)", "98.7% ± 0.5 (SD over seeds)": the SD names
            # the spread, not the number
        if m.end() < tok.start and _GLOSSED.fullmatch(t, m.end(), tok.start) \
                and t[max(seg.start, lo - 1) : lo].strip() in ("(", "") and "(" in t[seg.start : m.start()]:
            # "Error rate of the CNN (100 minus accuracy) is 1.3%": a gloss of the metric named before it
            glossed = list(METRIC_WORDS.finditer(t, seg.start, t.rfind("(", seg.start, m.start())))
            if glossed:
                best = (0, glossed[-1].group(0))
                break
        d = min(abs(m.start() - tok.end), abs(tok.start - m.end()))
        if best is None or d < best[0]:
            best = (d, m.group(0))
    window = max(seg.start, lo - 12)
    versus = re.search(r"\b(?:vs\.?|versus)\s*$", t[window:lo])
    if best is None and versus is not None and not t[lo : tok.start].strip():
        # "t quantile 4.30 vs 2.78": the number after "vs" shares the metric of the one before it
        before = window + versus.start()
        marks = list(re.finditer(r"[,;:(]|\b(?:but|while|whereas|and)\b", t[seg.start : before]))
        named = list(METRIC_WORDS.finditer(t, seg.start + marks[-1].end() if marks else seg.start, before))
        best = (0, named[-1].group(0)) if named else None
    if best is None:  # "Test MSE of linear regression: 3272", "SD over seeds: 0.1 for ..., 0.9 for ..."
        best = _label_metric(t, seg, lo)
    if best is None and _ELLIPSIS.fullmatch(t, lo, tok.start):
        # "its test error is 1.9%, the CNN's 1.3%": the clause borrows the metric before it (across
        # a ';' too: "the MLP's SD over seeds is 0.2 points; the CNN's 0.5")
        start = seg.start if not t[max(0, seg.start - 3) : seg.start].strip().endswith(";") \
            else max(t.rfind(". ", 0, seg.start), seg.start - 200, 0)
        earlier = list(METRIC_WORDS.finditer(t, start, lo))
        best = (0, earlier[-1].group(0)) if earlier else None
    if best is None and tok.role not in ("ci_low", "ci_high"):
        # "one standard deviation over seeds (the CNN's is 0.5, ...)"; not the two ends of a range
        # ("the SD is 0.15, so: test RMSE 57.2 (95% CI 57.05–57.35)"): a spread has no ends
        spread = list(_SPREAD_WORDS.finditer(t, seg.start, lo))
        if spread and not any(is_own(m.group(0)) for m in METRIC_WORDS.finditer(t, spread[-1].end(), lo)):
            best = (0, spread[-1].group(0))
    if best is not None and not is_own(best[1]):
        return best[1]
    return None


#: Words of a number's own precision ("to three decimals", "significant digits"): "precision"
#: beside them is how many digits are shown, not the precision metric.
_NUMERIC_PRECISION = re.compile(r"\bdecimals?\b|\bdecimal places\b|\bsignificant (?:digits|figures)\b"
                                r"|\bdigits? after\b", re.I)
#: The rest of a parenthetical gloss up to the number after it ("... accuracy) is 1.3%").
_GLOSSED = re.compile(r"[^()]*\)[^()]{0,20}", re.S)


#: A clause that is only a subject and its number ("the CNN's 1.3%", "and the MLP 55.9").
_ELLIPSIS = re.compile(r"\s*(?:and\s+|while\s+|whereas\s+)?(?:the\s+|its\s+)?[\w-]+(?:\s+[\w-]+)?(?:'s|’s)?"
                       r"\s*(?:is|was|at|of)?\s*(?:about|around|~)?\s*", re.I)
#: Statistics of spread and effect size: a number in a sentence about them states one of them.
_SPREAD_WORDS = re.compile(r"\b(?:standard deviations?|std\.?|SDs?|variances?|standard errors?|SEs?"
                           r"|hedges(?:'|’)?\s*g|cohen(?:'|’)?s\s*d|effect sizes?)\b", re.I)


#: Metrics one is easily written for the other: an error, its square, its absolute value.
_SIBLING_METRICS = ({"mse", "rmse", "mae"},)


def _siblings(word: str, claim: ClaimQuantity) -> bool:
    """Whether ``word`` names a metric of the claim's family but not the claim's (MSE for RMSE)."""
    word = word.lower().strip()
    own = {m.lower() for m in claim.metric}
    return any(word in family and own & family and word not in own for family in _SIBLING_METRICS)


def _label_metric(t: str, seg: Segment, lo: int) -> tuple[int, str] | None:
    """The metric a label names for the list after its colon: the last metric word before the
    colon, when the number's clause is part of that list (no sentence mark in between)."""
    colon = t.rfind(":", seg.start, lo)
    if colon < 0 or re.search(r"[.;!?]\s", t[colon:lo]):
        return None
    start = max(seg.start, t.rfind(";", seg.start, colon) + 1)
    named = list(METRIC_WORDS.finditer(t, colon, lo))
    if named:  # "the SD is 0.15, so: test RMSE 57.2 (95% CI 57.05–57.35)": the list names its own metric
        return (0, named[-1].group(0))
    words = list(METRIC_WORDS.finditer(t, start, colon))
    if words and words[-1].group(0).lower() == "precision" \
            and _NUMERIC_PRECISION.search(t, seg.start, seg.end):
        return None  # "Precision: the CNN result to three decimals is ...": digits shown, no metric
    return (0, words[-1].group(0)) if words else None


#: After a number of another split: it is passed off as the claim's ("which we treat as the test figure").
_PASSED_AS = re.compile(r"\b(?:report(?:s|ed)?|treat(?:s|ed)?|use[ds]?|quote[ds]?|present(?:s|ed)?|give[ns]?"
                        r"|list(?:s|ed)?|pass(?:es|ed)? off)\s+(?:it\s+|this\s+|that\s+)?as\s+"
                        r"(?:the\s+|our\s+|its\s+|a\s+)?", re.I)


def _foreign_split(t: str, seg: Segment, tok: Token, claim: ClaimQuantity, split: str | None,
                   header: str = "") -> bool:
    """Whether the split word nearest the number in its clause is another split's ("validation
    RMSE of 53.0"); "test RMSE of 57.2, close to its validation RMSE" names the claim's split."""
    pattern = _SPLIT_WORDS.get(split or "")
    if pattern is None:
        return False
    own = " ".join([*claim.metric, *claim.keywords]).lower()
    if header:  # a table cell: its column names the split ("Validation RMSE")
        return any(m.group(0).lower() not in own for m in pattern.finditer(header)) \
            and not _OWN_SPLIT[split or ""].search(header)
    passed_as = _PASSED_AS.search(t, tok.end, seg.end)
    if passed_as is not None and _OWN_SPLIT[split or ""].match(t, passed_as.end()):
        return False  # "validation RMSE, 53.0, is what we report as test RMSE": stated as the claim's split
    lo, hi = clause_of(t, seg, tok)

    def gap(m: re.Match[str]) -> int:
        return min(abs(m.start() - tok.end), abs(tok.start - m.end()))

    foreign = [gap(m) for m in pattern.finditer(t, lo, hi) if m.group(0).lower() not in own]
    if not foreign and not _OWN_SPLIT[split or ""].search(t, lo, hi):
        # "The CNN ends at 97.8%, the MLP at 96.8% on the validation split.": a split that closes
        # the sentence qualifies each of its clauses that names none
        trailing = _TRAILING_SPLIT.search(t, hi, seg.end)
        if trailing is not None and not re.search(r"[.;!?]\s", t[hi : trailing.start()]):
            return bool(pattern.search(trailing.group(1))) and trailing.group(1).lower() not in own
        # "On the validation split it is lower, about 53": the clause goes on with the split before
        earlier = [*pattern.finditer(t, seg.start, lo), *_OWN_SPLIT[split or ""].finditer(t, seg.start, lo)]
        last = max(earlier, key=lambda m: m.start(), default=None)
        return last is not None and bool(pattern.fullmatch(last.group(0))) \
            and last.group(0).lower() not in own
    if not foreign:
        return False
    mine = [gap(m) for m in _OWN_SPLIT[split or ""].finditer(t, lo, hi)]
    return not mine or min(foreign) < min(mine)


def split_misnamed_before(t: str, lo: int, pos: int, claim: ClaimQuantity) -> str | None:
    """The other split a bound citation at ``pos`` is given under in its clause ("the expected
    best *test* accuracy is {{ claim('val_claim') }}"): a foreign split word right before the
    claim's metric, with no word of the claim's own split in the clause; None otherwise."""
    pattern = _SPLIT_WORDS.get(claim.split or "")
    if pattern is None or not claim.metric:
        return None
    marks = [m.end() for m in re.finditer(r"[:;(]|[.!?]\s", t[lo:pos])]
    lo = lo + marks[-1] if marks else lo
    if _OWN_SPLIT[claim.split or ""].search(t, lo, pos):
        return None
    metric = "|".join(re.escape(w) for w in sorted(claim.metric, key=len, reverse=True))
    own = " ".join([*claim.metric, *claim.keywords]).lower()
    for m in pattern.finditer(t, lo, pos):
        named = re.match(rf"[*_\s]+(?:[\w-]+\s+)?(?:{metric})\b", t[m.end() : pos], re.I)
        if m.group(0).lower() not in own and named:
            return m.group(0)
    return None


def split_only_foreign(t: str, start: int, end: int, claim: ClaimQuantity) -> bool:
    """Whether ``t[start:end]`` names another split than the claim's and not the claim's own."""
    pattern = _SPLIT_WORDS.get(claim.split or "")
    if pattern is None or start >= end:
        return False
    own = " ".join([*claim.metric, *claim.keywords]).lower()
    foreign = any(m.group(0).lower() not in own for m in pattern.finditer(t, start, end))
    return foreign and not _OWN_SPLIT[claim.split or ""].search(t, start, end)


#: A split named at the close of a sentence or of the parenthesis its numbers stand in ("... on
#: the validation split.", "(MLP 96.8%, CNN 97.8% on the validation split)").
_TRAILING_SPLIT = re.compile(r"\b(?:on|for|over)\s+(?:the\s+)?(validation|val|dev|train(?:ing)?|test)"
                             r"\s+(?:split|set|data)\b(?:\s*\)|[\s.\]*_]*$)", re.I)


_AS_FRACTION = re.compile(r"\s*\(?(?:as an? )?(?:fraction|proportion|share)s?\b", re.I)


#: A verb that states a level right before a number: "sits at", "scores", "reaches".
LEVEL_VERB = re.compile(r"(?:\b(?:sits?|sat|stands?|stood|lands?|landed|comes?\s+in|came\s+in|is\s+now|now"
                         r"|(?:is|was|are|were)(?:\s+now)?)"
                         r"\s+at|\b(?:scores?|scored|reach(?:es|ed)?|gets?|got|hits?|achieves?|achieved|attains?|attained))"
                         r"\s*(?:about|around|roughly|~|≈)?\s*$", re.I)


#: Between a subject and its verb: an appositive ("the MLP, the simpler network, is at 97.2").
_APPOSITIVE = re.compile(r"\s*,\s*(?:the|a|an|our|its)\s+[\w\s-]{1,40}?,\s*", re.I)


def _level_stated(claim: ClaimQuantity, quantity: Quantity, tok: Token, t: str, seg: Segment, header: str,
                  mentions: list[Mention]) -> list[bool]:
    """"The CNN now sits at 98.2": a bare decimal in the size of a percentage claim, right after
    its own subject and a verb of level, is that percentage ([False]); else []."""
    if not (quantity.form == "measure" and quantity.format.percent and not claim.comparison and tok.unit == ""
            and not tok.integer and 1 <= abs(tok.value) <= 100 and not header):
        return []
    verb = LEVEL_VERB.search(t, max(seg.start, tok.start - 24), tok.start)
    before = [m for m in mentions if m.end <= (verb.start() if verb else tok.start) and m.start >= seg.start]
    if verb is None or not before or before[-1].subject not in {g[0] for g in claim.subjects} \
            or (verb.start() - before[-1].end > 12
                and not _APPOSITIVE.fullmatch(t, before[-1].end, verb.start())) \
            or _mismatch(claim, quantity, tok, False):
        return []
    return [False]


#: Words that make a percentage a relative change ("2.3% relative to linear", "in relative terms").
_RELATIVE_WORDS = re.compile(r"\brelative|\bproportion"
                             r"|\bof\s+(?:its|the|linear|the\s+\w+'s)\s+(?:level|rmse|error)"
                             r"|\bpercent(?:age)?\s+(?:reduction|improvement|drop|gain)"
                             r"|\b(?:gain|improvement|reduction)\s+(?:over|on|against)\b", re.I)


def shape_fits(claim: ClaimQuantity, quantity: Quantity, tok: Token, t: str, seg: Segment,
               header: str, cue: bool) -> list[bool]:
    """How the number can state the quantity: [False] as displayed, [True] as a fraction of a
    percentage, both, or [] when its shape does not fit (a count for a percentage...)."""
    fmt = quantity.format
    if quantity.form == "count":
        return [False] if tok.integer and tok.unit == "" else []
    if quantity.form == "probability":
        if tok.unit == "%":
            return [False]
        return [True] if tok.unit == "" and 0 <= tok.value <= 1 else []
    percent_header = bool(re.search(r"%|percent|\(pp\)|points", header, re.I))
    if (fmt.percent or claim.points) and tok.unit == "" and _AS_FRACTION.match(t, tok.end):
        return [True]  # "0.2 as a fraction of accuracy": 20 points, whatever its digits
    if fmt.percent:
        if tok.unit == "%" or (tok.unit == "" and percent_header):
            return [False]
        if tok.unit == "pts" and quantity.name in ("ci_half", "sd", "se"):
            return [False]  # "98.7% ± 0.6 points": a percentage's spread is in points
        if tok.unit == "" and not tok.integer and 1 <= abs(tok.value) <= 100 and not header and any(
                word_regex(w).search(t, seg.start, seg.end) for w in claim.metric):
            return [False]  # "CNN accuracy: 98.7 (95% CI 98.1-99.2)": the metric says what it is
        if tok.unit == "" and not tok.integer and 1 <= abs(tok.value) <= 100 and header \
                and not _mismatch(claim, quantity, tok, False):
            return [False]  # a table cell in the size of the percentage (its unit in the caption)
        if tok.unit == "" and not tok.integer and quantity.name in ("sd", "se", "ci_half") \
                and seg.cell(tok.start) is not None:
            return [False, True]  # "SD & 0.23 & 0.46" in a table of percentages: points, or a fraction
        if tok.unit == "" and not tok.integer and quantity.name in ("sd", "se", "ci_half") \
                and tok.role in ("sd", "se", "spread") and 0.1 <= abs(tok.value) < 100 \
                and re.search(r"(?:±|\+/-|\\pm)\s*$", t[max(seg.start, tok.start - 6) : tok.start]):
            return [False]  # "{{ claim('cnn_test_accuracy') }} ± 1.6 (SD over seeds)": points
        if tok.unit == "" and not tok.integer and tok.decimals >= 2 and 0.0 <= abs(tok.value) <= 1.0:
            return [True]
        if tok.unit == "" and not tok.integer and 10 <= abs(tok.value) <= 100 \
                and any(claim.accepts_quantity(q, tok.value, tok.decimals) for q in claim.quantities()
                        if q.form == "measure" and q.name != "ci_half"):
            # "98.67 on test" for 98.667%, "I had 98.4 in my head" for an interval end of 98.4%:
            # the claim's digits, three or more of them, say what the number is about
            return [False]
        return []
    if claim.points:
        if tok.unit in ("pts", "%") or (tok.unit == "" and percent_header):
            return [False]
        if tok.unit == "" and (cue or tok.signed) and tok.statement:
            by = re.search(r"\b(?:by|of)\s*[~≈]?\s*$", t[max(seg.start, tok.start - 8) : tok.start], re.I)
            options = [False] if abs(tok.value) < 100 and (tok.decimals >= 1 or tok.signed or by) else []
            if not tok.integer and tok.decimals >= 2 and abs(tok.value) < 1:
                options.append(True)
            return options
        return []
    want = fmt.suffix.strip()
    if not want:
        if tok.unit == "%" and not claim.comparison and not difference_shaped(t, seg, tok) \
                and not _mismatch(claim, quantity, tok, False) \
                and any(word_regex(w).search(t, seg.start, seg.end) for w in claim.metric):
            return [False]  # "test RMSE is 57.2%": the claim's number in a unit it is not in
        if tok.unit == "%" and claim.comparison and quantity.name == "value" \
                and claim.accepts_quantity(quantity, abs(tok.value), tok.decimals) \
                and not _RELATIVE_WORDS.search(t, seg.start, seg.end):
            return [False]  # "MLP improvement = 1.3% RMSE" for 1.3 RMSE units: its digits, a wrong unit
        if tok.unit not in ("", "pts"):
            return []  # "1.6 points" of a score: its own units, as researchers say it
        if fmt.decimals == 0 or not tok.integer:
            return [False]
        # an integer for a plain claim with decimals ("by 12" for 9.17): only where it is stated
        before = t[max(seg.start, tok.start - 24) : tok.start]
        if re.search(r"(?:\bby|\bof|\bis|\bwas|=|:|\bat|\breach(?:es|ed)?|\bscor(?:es|ed)|\bachiev(?:es|ed)"
                     r"|\bgets?|\bgot|\bto|\babout|\baround|\broughly|~|≈|\bonly|\bjust"
                     r"|\btakes?|\btook|\bshaves?|\bknocks?)\s*$", before, re.I):
            return [False]
        return []
    spaced = re.match(rf"[ \u00a0]?{re.escape(want)}(?!\w)", tok.follow)
    return [False] if tok.unit == want or (tok.unit == "" and spaced is not None) else []


def _mismatch(claim: ClaimQuantity, quantity: Quantity, tok: Token, fraction: bool) -> float:
    """How far the number is from the quantity in order of magnitude (0 when within 3x)."""
    if quantity.form == "count":
        return 0.0 if abs(tok.value - quantity.raw) <= max(3.0, 2 * quantity.raw) else 1.0
    expected = quantity.raw if fraction else quantity.format.scaled(quantity.raw)
    if quantity.form == "probability":
        expected = quantity.raw * (1 if fraction or tok.unit != "%" else 100)
    stated = abs(tok.value)
    scale = max(abs(expected), 1e-9)
    # half a point of slack where the unit is points or percent (a difference of +0.0 points)
    slack = 0.5 if not fraction and (claim.format.percent or claim.points) else 0.0
    if stated <= 3 * scale + slack and stated >= scale / 3 - slack:
        return 0.0
    return 1.0


_UNIT_LABEL = re.compile(r"\(\s*(?:\\?%|pp|points|percent)\s*\)", re.I)


#: A column of seed counts ("Seeds", "n", "# runs"): its cells state a claim's n.
_COUNT_HEADER = re.compile(r"\W*(?:n|#\s*(?:seeds|runs)|seeds?|runs|replicates|n\s*\(seeds\)"
                           r"|seeds?\s*\(n\))\W*", re.I)


#: A column of seeds-needed estimates ("Seeds needed per group", "n needed", "Seeds to resolve").
_NEEDED_HEADER = re.compile(r"\b(?:seeds?|runs|n)\s+(?:needed|required|to (?:resolve|detect|settle))\b"
                            r"|\bseeds?\s+per\s+group\b", re.I)


def header_role(header: str) -> str | None:
    """A table row or column that holds one end of an interval ("95% CI, lower", "CI high"), or
    a probability of improvement ("P(first better)", "Prob. better")."""
    if re.search(r"\bP\s*\(|\bprob(?:\.|ability|\b)", header, re.I):
        return "prob_better"
    if re.search(rf"(?<!\w)(?:{SD_WORDS.pattern})(?!\w)", header, re.I):
        return "sd"  # a row "SD & 0.23 & 0.46": the seeds' spread (the ± words' names), no level
    if re.search(rf"(?<!\w)(?:{SE_WORDS.pattern})(?!\w)", header, re.I):
        return "se"
    if not re.search(r"\b(?:CIs?|interval|bounds?)\b", header, re.I):
        return None
    if re.search(r"\b(?:lower|low|lo|min)\b", header, re.I):
        return "ci_low"
    if re.search(r"\b(?:upper|high|hi|max)\b", header, re.I):
        return "ci_high"
    return None


_PROBABILITY_WORDS = re.compile(r"\bP\s*\(|probabilit|\bprob\b|\bchance that\b", re.I)


#: An accuracy's complement named as its metric: "test error", "error rate", "misclassification rate".
_ERROR_RATE = re.compile(r"error(?: rate)?|err\.?\s+rate|misclassif(?:ies|ied|y|ying|ication(?: rate)?)",
                         re.I)
#: The error on a part of the data ("its error on the digit 8", "the error for class 3"), no complement.
_SUBSET_ERROR = re.compile(r"\berror(?:\s+rate)?\s+(?:on|for|of|in)\s+"
                           r"(?!(?:the\s+)?(?:test|held-out|hold-out)\b)"
                           # "an error rate of 2.7%", "of about 2%": the rate itself, no part of the data
                           r"(?!(?:about|around|roughly|approximately|only|just|nearly|almost|some"
                           r"|under|below|over|above)?\s*[~≈]?\s*\.?\d)", re.I)


def _error_on_subset(t: str, seg: Segment, tok: Token, claim: ClaimQuantity, mentions: list[Mention]) -> bool:
    """"its error on the digit 8": the error on a part of the data; "the error rate of the CNN"
    names the model whose error it is, which is the complement of its accuracy."""
    own = {g[0] for g in claim.subjects}
    if re.match(r"\s*(?:%|percent\b)\s+of\s+(?!(?:the\s+|all\s+)?(?:test|held-out|hold-out|unseen"
                r"|digits|images|examples|samples|inputs|items|cases|patients)\b)\w",
                t[tok.end - 1 if t[tok.end - 1 : tok.end] == "%" else tok.end : tok.end + 40], re.I) \
            and re.search(r"misclassif", t[max(seg.start, tok.start - 40) : tok.start], re.I):
        return True  # "misclassifies 0.4% of the sevens": a part of the data, no test error
    for m in _SUBSET_ERROR.finditer(t, max(seg.start, tok.start - 80), tok.end):  # (the number in
        # sight: "an error rate of 2.7%" is the rate)
        model = next((x for x in mentions if x.subject in own and m.end() <= x.start <= m.end() + 4), None)
        if model is None or _SUBSET_AFTER_MODEL.match(t, model.end, tok.start):
            return True  # "its error on the digit 8", "the error rate of the MLP on the digit 8"
    return False


#: After the model an error is "of": a part of the data it is measured on ("... of the MLP on the digit 8").
_SUBSET_AFTER_MODEL = re.compile(r"(?:'s)?\s+(?:on|for|in)\s+(?!(?:the\s+)?(?:test|held-out|hold-out)\b)\w",
                                 re.I)


def _role_quantities(role: str) -> tuple[str, ...]:
    return {"value": ("value",), "ci_low": ("ci_low", "prob_low"), "ci_high": ("ci_high", "prob_high"),
            "ci_end": ("ci_low", "ci_high"),
            "ci_half": ("ci_half",), "spread": ("ci_half", "sd", "se"), "sd": ("sd",), "se": ("se",),
            "n": ("n",), "configurations": ("configurations",),
            "seeds_needed": ("seeds_needed",),
            "prob_better": ("prob_better",)}[role]


def candidates(t: str, seg: Segment, tok: Token, claims: Sequence[ClaimQuantity],
               mentions: list[Mention], splits: dict[str, str | None],
               order: dict[str, int] | None = None) -> list[Candidate]:
    """Every (claim, quantity) the number could state, best first."""
    cell = seg.cell(tok.start)
    header = cell.column if cell else ""
    row_head = cell.row if cell else ""
    if cell is not None and (SETTING_HEADER.search(row_head) or SETTING_HEADER.search(header)) \
            and not _prose_cell(t, cell, mentions):
        return []  # a cell of a settings row or column ("learning rate | 1.0"): not a result
    columns = [c.column for c in seg.cells]
    if cell is not None and (_earlier_column(header, columns) or (
            _CHANGE_COLUMN.fullmatch(header) and any(_earlier_column(c, columns) for c in columns))):
        return []  # a cell under "v1" or "before" in a table of changes: the earlier version's number,
        # and its "Δ" column the change between the versions, no comparison of two models
    if cell is not None and seg.cells and re.fullmatch(r"\W*\d+\W*", row_head) \
            and _PER_RUN_COLUMN.fullmatch(seg.cells[0].column):
        return []  # a row "| 3 | 98.06 | 98.89 |" under "| Seed | MLP | CNN |": one seed's values, no mean
    cue = DIFF_CUE.search(t, seg.start, seg.end) is not None or bool(header and DIFF_CUE.search(header))
    # a column header names subjects too ("Δ vs MLP"): at distance 0, like its other words
    header_subjects = _header_subjects(header, claims) if header else set()
    if row_head and row_head not in t[seg.start : seg.end]:
        # a row header carried down from a \multirow ("vs control" over the rows "MLP", "CNN")
        header_subjects |= _header_subjects(row_head, claims)
    if cell is not None and seg.cells and re.fullmatch(r"\W*\d+\W*", row_head) and seg.cells[0].column:
        # "| configs | expected max |" over "| 4 | 94.5 |": the row is "4 configs"
        header_subjects |= _header_subjects(seg.cells[0].column, claims)
    named = {m.subject for m in mentions} | header_subjects
    out: list[Candidate] = []
    orphan = _unclaimed_pair_before(t, seg, tok, mentions, claims)
    carried = _carried_subject(t, seg, tok, mentions)
    mine = order.get("#" + str(tok.start)) if order is not None else None
    by_pairs = order is not None and any(k.startswith("pair:") for k in order) and "mixed" not in order
    for claim in claims:
        # placed by a "respectively" list of comparisons: named as that comparison, whatever its size
        placed = by_pairs and mine is not None and claim.comparison and order is not None \
            and _respective_position(claim, order) == mine
        placed = placed or (order is not None and "mixed" in order and mine is not None
                            and _respective_position(claim, order) == mine)  # a mixed list's item
        if by_pairs and mine is not None and not claim.comparison:
            continue  # a number in a list of comparisons is one of them, no side's level
        groups: list[tuple[str, list[tuple[int, int]], bool]] = []  # words, spans, in header
        kw_ok = bool(claim.keywords)
        own_subjects = {g[0] for g in claim.subjects}
        longer = [(m.start, m.end, m.subject.endswith("?")) for m in mentions
                  if m.subject not in own_subjects]
        for kw in claim.keywords:
            # a keyword inside a longer name of another subject ("MLP" in "wide MLP") is not it, nor
            # the name of a variant given by its size ("MLP, 128 hidden units")
            spans = [m.span() for m in word_regex(kw).finditer(t, seg.start, seg.end)
                     if not any(a <= m.start() and m.end() <= b and (sized or b - a > m.end() - m.start())
                                for a, b, sized in longer)]
            in_header = bool(header and word_regex(kw).search(header))
            if not spans and not in_header:
                kw_ok = False
                continue
            groups.append((kw, spans, in_header))
        sides = [g for g in claim.subjects if g[0] in named]
        for g in sides:
            hits = [m for m in mentions if m.subject == g[0]]
            groups.append((hits[0].words if hits else g[0], [(m.start, m.end) for m in hits],
                           g[0] in header_subjects))
        metric_hit = [w for w in claim.metric
                      if word_regex(w).search(t, seg.start, seg.end)
                      or (header and word_regex(w).search(header))]
        if claim.subjects:
            # one side is enough for what only a comparison has: "P(CNN better) = 0.84", "would need
            # about 10 seeds per group" after it
            eligible = len(sides) >= 2 or (len(sides) == 1 and (cue or tok.role in ("seeds_needed",
                                                                                     "prob_better")
                                                               or (tok.role == "n" and _count_of_a_side(
                                                                   t, tok, sides[0][0], mentions, claims)))) \
                if claim.comparison else len(sides) >= 1
        else:
            eligible = False
        if not (kw_ok or eligible):
            continue
        if claim.budget is not None and _SINGLE_BEST.search(t, seg.start, tok.start):
            continue  # "best single cfg: ... val acc 97.2%": one configuration's score, no expected best
        role = None
        if cell is not None:
            alone = re.fullmatch(r"\W*\d+\W*", t[cell.start : cell.end]) is not None  # not "5 and 2 seeds"
            counts = _COUNT_HEADER.fullmatch(header) or _COUNT_HEADER.fullmatch(row_head)  # a "Seeds" row too
            role = "n" if alone and counts else \
                "seeds_needed" if alone and _NEEDED_HEADER.search(header) else \
                header_role(f"{header} {row_head}")
        # a row header's unit label ("Mean test accuracy (%)") is its cells' unit, as a column's is
        shape_header = f"{header} {row_head}" if _UNIT_LABEL.search(row_head) else header
        spreads = claim.spreads() if (role or tok.role) in ("spread", "sd", "se") else []
        for quantity in [*claim.quantities(), *(q for q in spreads if q.name != "ci_half")]:
            if quantity.name not in _role_quantities(role or tok.role):
                continue
            if quantity.name in ("prob_low", "prob_high") and not _PROBABILITY_WORDS.search(
                    f"{header} {t[seg.start : tok.start]}"):
                continue  # an interval of P(better) only where the text speaks of a probability
            forms = shape_fits(claim, quantity, tok, t, seg, shape_header, cue or len(sides) >= 2) \
                or _level_stated(claim, quantity, tok, t, seg, header, mentions)
            if not forms:
                continue
            misnamed = ""
            # a table of fields ("| Test error rate (CNN) | 2.2% |" under "| Field | Value |"): the
            # row header names the metric where the column header names none
            metric_header = row_head if row_head and not METRIC_WORDS.search(header) \
                and METRIC_WORDS.search(row_head) else header
            foreign = _foreign_metric(t, seg, tok, claim, metric_header) if quantity.form == "measure" \
                else None
            if foreign and quantity.name in ("sd", "se") and _SPREAD_WORD.fullmatch(foreign) \
                    and not _SPREAD_WORD.search(header):
                foreign = None  # "± 1.5 points (SD)": the spread's own name, no other metric
            complement = bool(foreign) and _ERROR_RATE.fullmatch(foreign or "") is not None \
                and quantity.name == "value" and not claim.comparison and claim.format.percent \
                and any(w.lower() in ("accuracy", "acc") for w in claim.metric) \
                and not _error_on_subset(t, seg, tok, claim, mentions)
            if complement:  # "the CNN's test error is 1.3%": 100% minus its accuracy
                quantity, foreign = replace(quantity, name="error_rate", raw=1.0 - quantity.raw), None
            if foreign and _siblings(foreign, claim) and claim.accepts_quantity(
                    quantity, tok.value, tok.decimals, fraction=False):
                # "the test MSE is 57.2" for an RMSE of 57.2: the claim's number, misnamed
                misnamed = f"'{foreign}' (but the claim's metric is {claim.metric[0]})"
            elif foreign:
                continue
            elif quantity.form == "measure" and _foreign_split(
                    t, seg, tok, claim, splits.get(claim.id), f"{header} {row_head}".strip()):
                if not _split_slip(t, seg, claim, quantity, tok):
                    continue
                # "the CNN's validation accuracy is 98.7%" for a test accuracy of 98.7%: the
                # claim's own number to its last digit, under another split's name
                misnamed = f"another split's name (but the claim is on the {claim.split} split)"
            fraction = min(forms, key=lambda f: _closeness(claim, quantity, tok, f))
            bare = tok.unit == "" and not re.search(r"%|percent|points|\(pp\)", header, re.I) \
                and not _AS_FRACTION.match(t, tok.end)
            round_number = tok.integer and tok.value % 5 == 0
            if (bare or round_number) and quantity.form == "measure" and \
                    (claim.format.percent or claim.points) and _mismatch(claim, quantity, tok, fraction) \
                    and not ((tok.signed or (bare and not tok.integer))
                             and _digits_of_a_measure(tok, [quantity])) \
                    and not (tok.signed and quantity.name != "value" and claim.comparison) \
                    and not (cell is not None and claim.comparison and tok.signed
                             and _row_and_column_name_sides(cell, claim, mentions, header_subjects)):
                continue  # a bare or round number far from a percentage's size is a setting (not
                # its digits shifted: "CNN accuracy 9.87" for 98.7% is a slip of the decimal point,
                # and "+2" for +0.2 points too: a sign makes a difference, never a setting; a signed
                # interval end of a comparison is its end, however far: "the lower end is -0.6")
            if claim.comparison and quantity.form == "measure" and not difference_shaped(t, seg, tok) \
                    and not placed and (len(sides) < 2 or (_mismatch(claim, quantity, tok, fraction)
                                            and not _AS_FRACTION.match(t, tok.end))):
                continue  # a level (57.2 RMSE beside a 16.4 gap), not the difference: one side's
            if claim.comparison and quantity.form == "measure" and not placed \
                    and _level_of_one_subject(t, seg, tok, mentions) and not difference_shaped(t, seg, tok):
                continue  # "Ridge reaches 31.4, the control 71.3": the control's level, no difference
            if claim.comparison and quantity.name == "value" \
                    and _OWN_OTHER_SPLIT.search(t, *clause_of(t, seg, tok)):
                continue  # "the MLP's validation mean is 96.8%, 1.3 points under its test mean": one
                # model's two splits, no comparison's
            if carried is not None and claim.comparison and carried not in own_subjects:
                continue  # "the CNN leads the MLP by 0.6 and beats the control by 87.5": the CNN's
            if orphan and quantity.form == "measure":
                continue  # "the MLP's margin over the control is larger, 17.8": a comparison no claim
                # states owns it, no claim's level or difference
            if quantity.form == "count" and _mismatch(claim, quantity, tok, fraction) \
                    and not (quantity.name == "seeds_needed"
                             and (len(sides) >= 2 or tok.role == "seeds_needed")):
                continue  # 41 training runs in total: not this claim's seeds
            # "The MLP improves on linear regression by 16.4" (16.4 is linear vs control's): a
            # difference after the two sides of one comparison is that comparison's, before any
            # claim it only matches in size, however far from it
            paired = claim.comparison and quantity.name == "value" and order is None \
                and _pair_in_clause(t, seg, tok, claim, mentions) and difference_shaped(t, seg, tok)
            if quantity.form == "measure" and not (claim.format.percent or claim.points) and not paired \
                    and quantity.name not in ("ci_half", "sd", "se") \
                    and not _bracketed(t, tok) and not _named_as_metric(t, seg, tok, claim) \
                    and not placed and not _pair_labelled(t, seg, tok, claim, mentions) \
                    and not (cell is not None and claim.comparison and tok.signed
                             and _row_and_column_name_sides(cell, claim, mentions, header_subjects)) \
                    and _far_from_every_measure(claim, tok):
                continue  # 3272 (an MSE), 407 (a page), 0.05 (a learning rate) beside a 57.2 RMSE
            # "the control and the CNN score 98.7% and 11.2%, respectively": placed by the list, its
            # size does not make it another quantity (the two are swapped: both drift)
            listed = order is not None and mine is not None and not claim.comparison \
                and quantity.name == "value" and _respective_position(claim, order) == mine
            if quantity.form == "measure" and (claim.format.percent or claim.points) and tok.unit == "%" \
                    and not complement and not listed and not _fraction_with_percent(claim, quantity, tok) \
                    and _far_in_points(claim, tok):
                continue  # "40%-63% of the epoch budget" beside the MLP's 98.1%: another quantity
            if not claim.comparison and quantity.form == "measure" and cell is not None \
                    and _pair_column(cell.column, claims):
                continue  # a cell under "MLP − linear": the difference's, no side's level
            if not claim.comparison and quantity.form == "measure" and _stated_as_difference(t, seg, tok):
                continue  # "linear regression's is 16.4 lower": a difference, not its level
            if not claim.comparison and cell is None and order is None and quantity.form == "measure" \
                    and _clause_names_only_others(t, seg, tok, claim, mentions):
                continue  # "the wide MLP's test accuracy is 98.3%": another subject's level
            distance = 0
            for _, spans, in_header in groups:
                if in_header or (row_head and any(t[a:b] in row_head for a, b in spans)):
                    continue
                distance += min((_gap(t, tok, a, b) for a, b in spans), default=_CLAUSE_PENALTY)
            if order is not None and claim.subjects:
                position = _respective_position(claim, order)
                if mine is not None and (position != mine if position is not None
                                         else claim.comparison or "mixed" in order):
                    continue  # "respectively": this number is another subject's (or one side's level)
                distance = 0 if position is not None and position == mine else distance + _CLAUSE_PENALTY
            fit = 2 * len(sides) + (len(claim.keywords) if kw_ok else 0) + (1 if metric_hit else 0)
            if claim.comparison and len(sides) < 2 and not kw_ok:
                fit -= 1
                if tok.role in ("value", "ci_low", "ci_high") and _CHANGE_NOUN_BEFORE.search(
                        t, max(seg.start, tok.start - 90), tok.start):
                    fit += 2  # "the GBM's improvement is 9.17": a change of one side named, the
                    # comparison's (not the GBM's own level)
            elif claim.comparison and len(sides) < 2 and tok.role == "n" \
                    and not LOCAL_DIFF_CUE.search(t, seg.start, tok.start):
                fit -= 2  # "today's linear RMSE, over 3 seeds": one subject's count, not a comparison's
            if _pair_labelled(t, seg, tok, claim, mentions) or _named_by_id(t, seg, tok, claim.id):
                fit += 10  # "MLP over linear 16.4", "gbm_beats_ridge = 9.17": named as this claim, more
                # than any keyword
            if claim.comparison and quantity.form == "measure" and not difference_shaped(t, seg, tok) \
                    and not placed:
                fit -= 3  # both sides named, but the number reads as one side's level
            if not claim.comparison and quantity.form == "measure" and tok.value < 0 <= quantity.raw \
                    and (claim.ci_low is None or claim.ci_low >= 0):
                continue  # a negative number is no level of a metric that is never negative
            # both sides of a comparison named: the words decide, whatever the size ("CNN vs
            # control: 0.875 points" is that comparison in the wrong unit, not CNN vs MLP's)
            both = claim.comparison and (_sides_joined(t, seg, claim, mentions, tok)
                                         or _named_as_a_change(claim, mentions)
                                         or _sides_by_verb(t, seg, claim, mentions, tok)
                                         or (cell is not None and tok.signed and _row_and_column_name_sides(
                                             cell, claim, mentions, header_subjects)))
            # "the MLP's gain over the control is 0.869 points": a comparison whose sides the
            # sentence names, stated as its fraction with "points" (a unit slip, not another claim)
            slip = claim.comparison and claim.points and tok.unit == "pts" and len(sides) >= 2 \
                and quantity.name == "value" \
                and abs(abs(tok.value) - abs(claim.value)) <= half_unit(tok.decimals)
            # "The MLP lowers the test RMSE by 13 compared to linear regression" for 1.3: the digits
            # of the comparison whose two sides the sentence names, with the decimal point moved
            shifted = claim.comparison and len(sides) >= 2 and quantity.name == "value" \
                and _digits_of_a_measure(tok, [quantity]) \
                and _mismatch(claim, quantity, tok, fraction) > 0
            # "... the CNN and the MLP. Settling it would take 40 seeds per model": the estimate of
            # the comparison whose sides are named, whichever estimate its size is nearer
            estimated = quantity.name == "seeds_needed" and tok.role == "seeds_needed" and len(sides) >= 2
            fits_size = both or slip or placed or shifted or paired or estimated
            key = (0.0 if fits_size else _mismatch(claim, quantity, tok, fraction), -fit, distance,
                   tok.start)
            unique: dict[str, str] = {}
            named_words = [g for g, _, _ in groups]
            extra = [w for w in metric_hit[:1] if not any(w.lower() in g.lower() for g in named_words)]
            for word in named_words + extra:
                unique.setdefault(word.lower().removesuffix("'s").removesuffix("’s"), word)
            words = tuple(unique.values())
            out.append(Candidate(claim, quantity, fraction, key, words, misnamed))
    out.sort(key=lambda c: (c.key, c.claim.id))
    return out


#: Words joining the two sides of one comparison (not of a list of subjects).
_PAIR_WORDS = re.compile(r"\b(?:vs\.?|versus|against|than|over|on|upon|relative to|compared(?: to| with)?"
                         r"|beats?|beating|outperforms?|improves?|lowers?|reduces?|cuts?|trails?|leads?"
                         r"|exceeds?|ahead of|behind|from|to|minus|off|below|above|under)\b|[−–-]|/", re.I)
#: Where the stretch of a sentence that a difference belongs to begins: a clause of its own.
_PAIR_CLAUSE_BREAK = re.compile(r"[;(]|\b(?:but|while|whereas|although|though)\b|,\s*(?:and|or)\b|\.\s", re.I)


def _pair_in_clause(t: str, seg: Segment, tok: Token, claim: ClaimQuantity, mentions: list[Mention]) -> bool:
    """Whether both sides of a comparison are named in the stretch of the sentence that leads to
    the number (from its last clause break), and no third subject is."""
    lo = seg.start
    for m in _PAIR_CLAUSE_BREAK.finditer(t, seg.start, tok.start):
        lo = m.end()
    end = _PAIR_CLAUSE_BREAK.search(t, tok.end, seg.end)
    hi = end.start() if end else seg.end
    # "The MLP takes 13 off the linear model's RMSE": the sides around the number count too
    inside = [m for m in mentions if lo <= m.start and m.end <= hi]
    here = {m.subject for m in inside}
    own = {g[0] for g in claim.subjects}
    if len(claim.subjects) < 2 or not own <= here or len(here) != len(own):
        return False
    first, second = sorted((next(m for m in inside if m.subject == s) for s in own), key=lambda m: m.start)
    between = t[first.end : second.start]
    # "the MLP improves on linear regression", "CNN vs MLP"; not "the MLP and the CNN beat it" (a list)
    return _PAIR_WORDS.search(between) is not None and not re.fullmatch(r"[\W_]*(?:and|or|nor|&)?[\W_]*"
                                                                          r"(?:the\s+)?", between, re.I)


def _fraction_with_percent(claim: ClaimQuantity, quantity: Quantity, tok: Token) -> bool:
    """"CNN test acc = 0.987%" for 98.7%: the fraction written with a percent sign, a unit slip."""
    return claim.format.percent and tok.unit == "%" and tok.decimals >= 2 and 0 < abs(tok.value) < 1 \
        and abs(tok.value - quantity.raw) <= half_unit(tok.decimals)


def _significant_digits(value: float) -> str:
    return f"{abs(value):.6g}".replace(".", "").lstrip("0").rstrip("0") or "0"


def _row_and_column_name_sides(cell: Cell, claim: ClaimQuantity, mentions: list[Mention],
                               header_subjects: set[str]) -> bool:
    """Whether a cell's row header names one side of the comparison and its column header the
    other ("| control | ... | −1.3 |" under "vs. linear"): the cell is that comparison's, whatever
    its size (a number copied from the row above is its drift, not another comparison's value)."""
    first, second = claim.subjects[0][0], claim.subjects[1][0] if len(claim.subjects) > 1 else ""
    in_row = {m.subject for m in mentions if m.start < cell.start} | {
        m.subject for m in mentions if cell.row and m.words in cell.row}
    return bool(second) and ((first in in_row and second in header_subjects)
                             or (second in in_row and first in header_subjects))


def _far_from_every_measure(claim: ClaimQuantity, tok: Token) -> bool:
    """Whether a plain number is more than 3x away from the claim's value and both interval
    ends, and not the same digits shifted (5.72 for 57.2 is a typo of this claim; 3272 is not)."""
    measures = [q for q in claim.quantities() if q.form == "measure"]
    if not all(_mismatch(claim, q, tok, False) for q in measures):
        return False
    return not _digits_of_a_measure(tok, measures)


def _digits_of_a_measure(tok: Token, measures: list[Quantity]) -> bool:
    """Whether the number shows the digits of one of the measures, shifted or not (5.72 or 0.572
    for 57.2): a slip of the pen, at the precision it states or the claim's."""
    shown = _significant_digits(tok.value)
    if len(shown) < 2 and not tok.signed:
        return False  # one unsigned digit (0.002 beside a half-width of 0.2) shows no claim's digits
    return any(_significant_digits(round(q.format.scaled(q.raw), decimals)) == shown
               for q in measures for decimals in {max(tok.decimals, 0), q.format.decimals})


_OPEN_BRACKET = re.compile(r"[\[(]\s*(?:[-−+]?\d[\d.]*\s*[,;–-]\s*)?$")


def _bracketed(t: str, tok: Token) -> bool:
    """An end of an interval in brackets ("[-22.6, -1.2]"): its place says what it is, whatever
    its size (a dropped digit is still this interval's end)."""
    return tok.role in ("ci_low", "ci_high", "ci_end") and (
        _OPEN_BRACKET.search(t[max(0, tok.start - 20) : tok.start]) is not None
        or re.match(r"\s*[\])]", t[tok.end : tok.end + 3]) is not None)


def _named_as_metric(t: str, seg: Segment, tok: Token, claim: ClaimQuantity) -> bool:
    """"Ridge's test RMSE is 442": the claim's metric names the number directly, whatever its size."""
    before = t[max(seg.start, tok.start - 40) : tok.start]
    return any(re.search(word_regex(w).pattern.rstrip("$") + r"\s*(?:is|was|of|=|:|reaches|reached)?\s*"
                         r"(?:about|around|roughly|~|≈)?\s*\\?(?:num\{)?\s*$", before, re.I)
               for w in (*claim.metric, *claim.keywords))


def _far_in_points(claim: ClaimQuantity, tok: Token) -> bool:
    """Whether a percentage lies further from every measure of the claim than a slip of the pen
    goes: 10 points, or three half-widths of its interval where that is wider (1.3% is a test
    error beside a 98.7% accuracy, not a drift of it); a percentage with the same digits shifted
    (0.987% for 98.7%) is a slip and stays."""
    measures = [q for q in claim.quantities() if q.form == "measure"
                and (q.name != "ci_half" or tok.role == "ci_half")]  # 1.9% is no slip of a ± 0.3
    half = (claim.format.scaled(claim.ci_high) - claim.format.scaled(claim.ci_low)) / 2 \
        if claim.ci_low is not None and claim.ci_high is not None else 0.0
    limit = max(10.0, 3 * abs(half))
    if any(abs(abs(tok.value) - abs(q.format.scaled(q.raw))) <= limit for q in measures):
        return False
    return not _digits_of_a_measure(tok, measures)


_DIFFERENCE_AFTER = re.compile(r"\s*(?:points?\s+|pp\s+|(?:[A-Za-z]+\s+)?units?\s+)?"  # "14 RMSE units worse"
                               r"[*_]*(?:lower|higher|better|worse|less|more|smaller|larger)\b", re.I)


def _stated_as_difference(t: str, seg: Segment, tok: Token) -> bool:
    """"16.4 lower", "by 1.3": the number states a difference, which no level of a metric is."""
    if _DIFFERENCE_AFTER.match(t, tok.end, seg.end):
        return True
    if _difference_label(t, seg, tok):
        return True  # "Improvement of the GBM: 9.17"
    return re.search(r"\bby\s*[~≈]?\s*$", t[max(seg.start, tok.start - 8) : tok.start], re.I) is not None


#: An evaluation split named next to a number (training is what was done, not where it was measured).
_EVAL_SPLIT = {"test": re.compile(r"\b(?:validation|val|dev|development)\b", re.I),
               "val": re.compile(r"\btest\b", re.I)}


def _split_slip(t: str, seg: Segment, claim: ClaimQuantity, quantity: Quantity, tok: Token) -> bool:
    """Whether a number under another evaluation split's name is the claim's value itself, stated
    to the claim's full precision (not rounded, not approximate): the claim's number, its split
    misnamed."""
    named = _EVAL_SPLIT.get(claim.split or "")
    return named is not None and named.search(t, max(seg.start, tok.start - 60), min(seg.end, tok.end + 40)) \
        is not None and quantity.name == "value" and not claim.comparison and not tok.approximate \
        and not tok.bound \
        and tok.decimals >= max(1, claim.format.decimals) \
        and claim.accepts_quantity(quantity, tok.value, tok.decimals, fraction=False)


def _pair_column(column: str, claims: Sequence[ClaimQuantity]) -> bool:
    """Whether a column header is a difference of two subjects ("MLP − linear", "CNN vs MLP")."""
    return _ROW_PAIR.fullmatch(column.strip()) is not None and len(_header_subjects(column, claims)) >= 2


def _level_of_one_subject(t: str, seg: Segment, tok: Token, mentions: list[Mention]) -> bool:
    """Whether the number's clause names one subject, right before it ("..., the control 71.3")."""
    lo, _ = clause_of(t, seg, tok)
    near = [m for m in mentions if lo <= m.start and m.end <= tok.start]
    return bool(near) and len({m.subject for m in near}) == 1 and tok.start - near[-1].end <= 30


#: Between a subject and its number in apposition: "the wide MLP (98.3%)", "the wide MLP, at 98.3%".
_APPOSITION = re.compile(
    r"(?:'s|’s)?\s*(?:\(|,)\s*(?:at|with|reaching|scoring)?\s*(?:about|around|roughly|~|≈)?\s*", re.I)


def _clause_names_only_others(t: str, seg: Segment, tok: Token, claim: ClaimQuantity,
                              mentions: list[Mention]) -> bool:
    """Whether the number's clause (with the label before its colon: "Small MLP: test RMSE 55.9")
    names another subject and none of the claim's, and the claim's subject is not named before
    it either ("..., higher than the MLP's" after it): the number is the other subject's level."""
    own = {g[0] for g in claim.subjects}
    last = [m for m in mentions if seg.start <= m.start and m.end <= tok.start]
    if last and last[-1].subject not in own and _APPOSITION.fullmatch(t, last[-1].end, tok.start):
        return True  # "the wide MLP (98.3%) beats the MLP": in apposition to the subject before it
    possessed = _POSSESSED.search(t, last[-1].start, tok.start) if last else None
    if last and last[-1].subject not in own and possessed is not None and possessed.start() <= last[-1].end:
        return True  # "...: our MLP's test RMSE is 55.9": the possessor's level, whoever came before
    lo, hi = clause_of(t, seg, tok)
    head = t[seg.start : lo].rstrip(" (")
    if head.endswith(":"):
        lo = max(seg.start, t.rfind(";", seg.start, lo) + 1)
    own = {g[0] for g in claim.subjects}
    inside = {m.subject for m in mentions if lo <= m.start and m.end <= hi}
    before = {m.subject for m in mentions if seg.start <= m.start and m.end <= tok.start}
    near = [m for m in mentions if lo <= m.start and m.end <= tok.start]
    if near and near[-1].subject not in own and not any(m.subject in own for m in near) \
            and tok.start - near[-1].end <= 30:
        return True  # "Linear regression reaches 57.2, the MLP 55.9": the subject just before it
    return bool(inside) and not (inside & own) and not (before & own)


#: A possessor's metric and then its number: "MLP's test RMSE is 55.9", "the MLP’s RMSE: 55.9".
_POSSESSED = re.compile(r"(?:'s|’s)\s+(?:(?!(?:and|or|but|than|over|vs)\b)[\w-]+\s+){0,3}?"
                        r"(?:is|was|of|at|=|:)\s*(?:about|around|roughly|~|≈)?\s*$", re.I)


_JOINED = re.compile(r"^\W*(?:the\s+|its\s+)?(?:(?:improvement|gain|lead|advantage|margin|edge)\s+)?"
                     r"(?:vs\.?|versus|minus|over|against|compared (?:to|with)"
                     r"|[-−–]|\$\s*-\s*\$)\W*(?:the\s+|its\s+)?$", re.I)


def _joined_pairs(t: str, seg: Segment, mentions: list[Mention]) -> list[tuple[int, frozenset[str]]]:
    """The comparisons a segment writes as their two sides ("CNN vs control", "MLP over
    linear"): (where the pair ends, its two subjects), in order."""
    ordered = [m for m in mentions if seg.start <= m.start < seg.end]
    return [(b.end, frozenset((a.subject, b.subject))) for a, b in pairwise(ordered)
            if a.subject != b.subject and _JOINED.match(t[a.end : b.start])]


def _sides_joined(t: str, seg: Segment, claim: ClaimQuantity, mentions: list[Mention], tok: Token) -> bool:
    """Whether the segment writes the comparison's two sides as one ("CNN vs control", "linear
    minus control"), not as a list of subjects ("the MLP and the CNN beat it"). Where such a
    pair comes before the number, the nearest one is the number's ("gains: MLP over linear
    16.4, linear over control 1.3": 16.4 is MLP over linear's)."""
    sides = frozenset(g[0] for g in claim.subjects)
    pairs = _joined_pairs(t, seg, mentions)
    before = [pair for end, pair in pairs if end <= tok.start]
    if before:
        return before[-1] == sides
    return any(pair == sides for _, pair in pairs)


#: A verb of comparison between two subjects: "improves on", "beats", "is better than".
_COMPARING_VERB = re.compile(r"^\W*(?:clearly\s+|still\s+|now\s+)?(?:improves?\s+(?:on|upon)|beats?"
                             r"|outperforms?|leads?|trails?|(?:is|does)\s+(?:better|worse)\s+than|is\s+ahead\s+of"
                             r"|is\s+behind)\s+(?:the\s+|its\s+)?$", re.I)
#: From the second side to its number: "... linear regression by 13", "... the control's by 16.4".
_BY_NUMBER = re.compile(r"^(?:'s|’s)?\s*(?:RMSE|error|accuracy|score|loss)?\s*by\s*(?:about\s+|~\s*)?$", re.I)


def _sides_by_verb(t: str, seg: Segment, claim: ClaimQuantity, mentions: list[Mention], tok: Token) -> bool:
    """"The MLP improves on linear regression by 13": its two sides around a verb of comparison,
    then "by" and the number: that comparison's number, whatever its size."""
    sides = {g[0] for g in claim.subjects}
    near = [m for m in mentions if seg.start <= m.start and m.end <= tok.start]
    if len(near) < 2:
        return False
    a, b = near[-2], near[-1]
    return {a.subject, b.subject} == sides and a.subject != b.subject \
        and _COMPARING_VERB.match(t[a.end : b.start]) is not None \
        and _BY_NUMBER.match(t[b.end : tok.start]) is not None


def pair_before(t: str, seg: Segment, mentions: list[Mention], tok: Token) -> frozenset[str] | None:
    """The two sides of the comparison the segment writes as a pair ("linear vs control") nearest
    before the number, or None where it writes none before it."""
    before = [pair for end, pair in _joined_pairs(t, seg, mentions) if end <= tok.start]
    return before[-1] if before else None


def _pair_key(sides: Iterable[str]) -> str:
    return "pair:" + "|".join(sorted(sides))


def _respective_position(claim: ClaimQuantity, order: dict[str, int]) -> int | None:
    """Which place of a "respectively" list a claim takes: a measurement its subject's; a
    comparison that of the one side the list names ("the MLP and the CNN beat it by 86.9 and 87.5
    points respectively": MLP vs control is first), or its place in a list of comparisons ("the
    MLP's gain over linear and linear's over the control are 1.3 and 16.4"). None when the list
    does not place it."""
    if not claim.comparison:
        return order.get(claim.subjects[0][0])
    if any(k.startswith("pair:") for k in order) or "mixed" in order:
        return order.get(_pair_key(g[0] for g in claim.subjects))
    places = [order[g[0]] for g in claim.subjects if g[0] in order]
    return places[0] if len(places) == 1 else None


def _named_by_id(t: str, seg: Segment, tok: Token, claim_id: str) -> bool:
    """"gbm_beats_ridge = 9.17": the number given right after its claim's id."""
    before = t[max(seg.start, tok.start - len(claim_id) - 12) : tok.start]
    if claim_id not in before:
        return False  # the usual case, without a pattern built for the id
    return re.search(r"(?<![\w-])" + re.escape(claim_id) + r"`?\s*(?:=|:|is|was)\s*(?:about\s+|~\s*)?$",
                     before) is not None


def difference_shaped(t: str, seg: Segment, tok: Token) -> bool:
    """Whether a number reads as a difference: signed, in points, or right after "by", "lead"..."""
    if tok.signed or tok.unit == "pts" or tok.value < 0:
        return True
    cell = seg.cell(tok.start)
    column = _OVER_RUNS.sub(" ", cell.column) if cell is not None else ""
    if cell is not None and _ROW_PAIR.fullmatch(column.strip()) and not _STAT_COLUMN.search(cell.row):
        return True  # a column "MLP − linear": its cells are the difference's
    if cell is not None and _ROW_PAIR.fullmatch(cell.row.strip()) and not _STAT_COLUMN.search(column):
        return True  # a row "CNN − control" (LaTeX "CNN $-$ control"): its cells are the difference's
    if cell is not None and _ROW_OVER.fullmatch(_OVER_RUNS.sub(" ", cell.row).strip()) \
            and not _STAT_COLUMN.search(column):
        return True  # a row "MLP over linear": the improvement of the one over the other
    if cell is not None and (DIFF_CUE.search(column)
                             or len(re.findall(r"[A-Za-z]{2,}", t[cell.start : cell.end])) < 6):
        return bool(DIFF_CUE.search(column))  # a sentence in a cell is read as prose
    lo, _ = clause_of(t, seg, tok)
    if _THAN_AFTER.match(t, tok.end, seg.end):
        return True  # "1.3 higher than linear regression's"
    if _OVER_LABEL.match(t[seg.start : tok.start]) or _PAIR_LABEL.fullmatch(t, lo, tok.start):
        return True  # "CNN over control: 0.875", "gains: MLP over linear 1.3"
    if _difference_label(t, seg, tok):
        return True
    if _TAKES_OFF.search(t, max(lo, tok.start - 16), tok.start) and _OFF_AFTER.match(t, tok.end):
        return True  # "the MLP takes 13 off the linear model's RMSE"
    if tok.role in ("ci_low", "ci_high") and _CHANGE_NOUN_BEFORE.search(t, max(seg.start, tok.start - 90),
                                                                         tok.start):
        return True  # "the interval of the GBM's improvement over ridge runs from 7.20 to 11.14"
    return LOCAL_DIFF_CUE.search(t, max(lo, tok.start - 40), tok.start) is not None


_TAKES_OFF = re.compile(r"\b(?:takes?|took|taking|knocks?|knocked|shaves?|shaved|trims?|trimmed)\s+"
                        r"(?:about\s+|around\s+|roughly\s+|~\s*)?$", re.I)
_OFF_AFTER = re.compile(r"\s*(?:points?\s+|units?\s+|RMSE\s+)?off\b", re.I)
#: A label opening its item, and its colon: "Improvement of the network: 1.3 (...)".
_CUE_LABEL = re.compile(r"[\s*_>#-]*([^.;:!?\n\d]{1,60}):\s")
#: A label's noun that names a difference (not "by" or "over", which a label of levels has too).
_DIFFERENCE_NOUN = re.compile(r"\b(?:improvements?|gains?|lead|gap|margin|difference|advantage|delta"
                              r"|reduction|edge)\b|Δ", re.I)


def _difference_label(t: str, seg: Segment, tok: Token) -> bool:
    """"Improvement of the network: 1.3 (confidence range 0.2–2.8)": the label opening the item
    names a difference, so its numbers (value and interval) are the difference's, no level."""
    label = _CUE_LABEL.match(t, seg.start, tok.start)
    return label is not None and _DIFFERENCE_NOUN.search(label.group(1)) is not None \
        and not re.search(r"[.;!?]\s", t[label.end() : tok.start])


#: "mean over 5 seeds", "over runs": what a column averages over, no comparison ("MLP over linear").
_OVER_RUNS = re.compile(r"\bover\s+(?:the\s+|all\s+)?(?:\d+\s+|\w+\s+)?(?:seeds?|runs?|folds?|repeats?"
                        r"|repetitions?|trials?)\b", re.I)
_THAN_AFTER = re.compile(r"\s*(?:points?\s+|pp\s+|(?:[A-Za-z]+\s+)?units?\s+)?(?:[a-z]+\s+)?[*_]*"
                         r"(?:(?:higher|lower|better|worse|more|less)"
                         r"[*_]*(?:\s+on\s+average)?(?:\s+than\b|\s*(?:[.;,)]|$))|(?:above|below)\b"
                         r"|(?:ahead\s+of|behind|short\s+of)\b)", re.I)  # "1.9 RMSE ahead of least squares"
#: "CNN over control: 0.875": a short label of two sides, then the number.
#: A clause that goes on with the sentence's subject: "... and beats the control by 87.5".
_ELIDED_SUBJECT = re.compile(r"\s*(?:also\s+|then\s+|even\s+)?(?:beats?|leads?|outperforms?"
                             r"|trails?|exceeds?|tops?|surpass(?:es)?|improves?\s+(?:on|over|upon)"
                             r"|lowers?|reduces?|cuts?)\b", re.I)


def _carried_subject(t: str, seg: Segment, tok: Token, mentions: list[Mention]) -> str | None:
    """The subject of a clause that has none of its own ("The CNN leads the MLP by 0.6 points and
    beats the control by 87.5"): the sentence's first subject, not the object before it."""
    lo, _ = clause_of(t, seg, tok)
    opening = _ELIDED_SUBJECT.match(t, lo)
    if opening is None or opening.end() > tok.start or not re.search(r"\b(?:and|but)\s*$", t[seg.start : lo]):
        return None
    first = [m for m in mentions if seg.start <= m.start < lo]
    return first[0].subject if first else None


def _prose_cell(t: str, cell: Cell, mentions: list[Mention]) -> bool:
    """A cell that is a sentence naming a subject ("done: the CNN-MLP question needs about
    twelve seeds per group") is prose whatever its column: its header holds no settings for it."""
    words = re.findall(r"[A-Za-z]{2,}", t[cell.start : cell.end])
    return len(words) >= 6 and any(cell.start <= m.start and m.end <= cell.end for m in mentions)


def _unclaimed_pair_before(t: str, seg: Segment, tok: Token, mentions: list[Mention],
                           claims: Sequence[ClaimQuantity]) -> bool:
    """Whether the comparison written as two sides nearest before the number, with no subject
    named between, is one no claim states (the MLP over the control, where the claims compare
    linear regression with each)."""
    pairs = [(end, pair) for end, pair in _joined_pairs(t, seg, mentions) if end <= tok.start]
    if not pairs:
        return False
    end, pair = pairs[-1]
    if any(end <= m.start and m.end <= tok.start for m in mentions):
        return False
    return pair not in {frozenset(g[0] for g in c.subjects[:2]) for c in claims if c.comparison}


def _pair_labelled(t: str, seg: Segment, tok: Token, claim: ClaimQuantity, mentions: list[Mention]) -> bool:
    """Whether the number's clause is the comparison's two sides, then the number ("MLP over
    linear 16.4"): it is named as that comparison's difference, whatever its size."""
    if not claim.comparison:
        return False
    lo, _ = clause_of(t, seg, tok)
    labelled = _PAIR_LABEL.fullmatch(t, lo, tok.start) is not None \
        or _OVER_LABEL.match(t[seg.start : tok.start]) is not None  # "CNN over the control: +87.5"
    return labelled and _sides_joined(t, seg, claim, mentions, tok)


#: A clause that is a comparison's two sides, then its number: "MLP over linear 1.3" (quoted too:
#: '"MLP minus control is +87.5 points" - that is the CNN's margin' quotes a statement of MLP's).
#: A column of a test statistic or an effect size, not of the difference ("Welch p", "Hedges' g").
_STAT_COLUMN = re.compile(r"\bp\b|p-value|hedges|cohen|\bg\b|\bd\b|\bt\b|statistic|\bsd\b|\bstd\b"
                          r"|seeds?|\bn\b|power", re.I)
#: A row header that is a difference of two names: "CNN − control", "CNN - control", "A vs B".
_ROW_PAIR = re.compile(r"[A-Za-z][\w-]*(?:\s+[\w-]+)?\s+(?:[-−–]|vs\.?|versus|minus)\s+"
                       r"(?:the\s+)?[A-Za-z][\w-]*(?:\s+[\w-]+)?", re.I)
#: A row header that is one model over another: "MLP over linear", "CNN over the control".
_ROW_OVER = re.compile(r"[A-Za-z][\w-]*(?:\s+[\w-]+)?\s+over\s+(?:the\s+)?[A-Za-z][\w-]*(?:\s+[\w-]+)?",
                       re.I)
_PAIR_LABEL = re.compile(r"[\s\"“‘'*_]*(?:the\s+)?[\w-]+(?:\s+[\w-]+)?\s+"
                         r"(?:over|vs\.?|versus|minus|against)\s+"
                         r"(?:the\s+|its\s+)?[A-Za-z][\w-]*(?:\s+[\w-]+)?\s*[:=]?\s*", re.I)
_OVER_LABEL = re.compile(r"[\s\"“‘'*_]*(?:the\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:over|vs\.?|versus|minus)\s+"
                         r"(?:the\s+|its\s+)?"
                         r"[A-Za-z][\w-]*(?:\s+[\w-]+)?\s*[:=]\s*$", re.I)


def _closeness(claim: ClaimQuantity, quantity: Quantity, tok: Token, fraction: bool) -> float:
    expected = quantity.raw if fraction else quantity.format.scaled(quantity.raw)
    return abs(abs(tok.value) - abs(expected))


#: Before a subject that is the reference of a comparison, not a member of the list: "over the
#: control", "beat the shuffled-label control", "than linear regression".
_REFERENCE_BEFORE = re.compile(r"\b(?:over|than|against|vs\.?|versus|beats?|outperforms?|above|below|on)"
                               r"\s+(?:the\s+|its\s+|a\s+)?(?:[\w-]+\s+)?$", re.I)


def listed_subjects(t: str, before: list[Mention], count: int) -> list[str] | None:
    """The subjects of a "respectively" list, in order: those named before the list's first
    number or citation, without the reference both are compared with ("Over the control, the
    CNN and the MLP gain 86.9 and 87.5 points, respectively"); None unless ``count`` remain."""
    subjects: list[str] = []
    for m in before:
        if m.subject not in subjects:
            subjects.append(m.subject)
    if len(subjects) == count:
        return subjects
    reference = {m.subject for m in before if _REFERENCE_BEFORE.search(t, max(0, m.start - 30), m.start)}
    listed = [s for s in subjects if s not in reference]
    if len(listed) == count:
        return listed
    # an opening phrase that names as many subjects as there are numbers is the list ("Relative
    # to the control and to the MLP, linear regression differs by ... and ..., respectively")
    mark = re.search(r"[,;:]", t[before[0].start : before[-1].start]) if before else None
    if mark is None:
        return None
    opening: list[str] = []
    for m in before:
        if m.start < before[0].start + mark.start() and m.subject not in opening:
            opening.append(m.subject)
    return opening if len(opening) == count else None


_ITEM_CUE = re.compile(r"\b(?:gain|improvement|margin|lead|advantage|difference|gap|over|vs\.?|versus|minus"
                       r"|than|against)\b", re.I)
_ITEM_PRONOUN = re.compile(r"\b(?:it|its|them|their)\b", re.I)


def _listed_items(t: str, seg: Segment, before: list[Mention], values: list[Token]) -> list[str] | None:
    """"The test RMSE of linear regression and the gain of the MLP over it were 57.2 and 1.3,
    respectively": a list that mixes a subject's level and a comparison (its pronoun the item
    before's subject), as keys (a subject, or a pair key); None unless it has one item a number
    and both kinds."""
    marks = [seg.start + m.end() for m in re.finditer(r"[:;]", t[seg.start : values[0].start])]
    lo = marks[-1] if marks else seg.start
    spans, start = [], lo
    for m in re.finditer(r"\s+and\s+|,\s*", t[lo : values[0].start]):
        spans.append((start, lo + m.start()))
        start = lo + m.end()
    spans.append((start, values[0].start))
    if len(spans) != len(values):
        return None
    keys: list[str] = []
    last: str | None = None
    for a, b in spans:
        named = list(dict.fromkeys(m.subject for m in before if a <= m.start and m.end <= b))
        if _ITEM_PRONOUN.search(t, a, b) and last is not None and last not in named:
            named.append(last)
        if _ITEM_CUE.search(t, a, b) and len(named) == 2:
            keys.append(_pair_key(named))
        elif len(named) == 1 and not _ITEM_CUE.search(t, a, b):
            keys.append(named[0])
        else:
            return None
        last = named[0]
    kinds = {k.startswith("pair:") for k in keys}
    return keys if kinds == {True, False} and len(set(keys)) == len(keys) else None


def listed_comparisons(t: str, seg: Segment, before: list[Mention], count: int) -> list[str] | None:
    """The comparisons a "respectively" list names as their two sides, in order ("the MLP's gain
    over linear regression and linear regression's over the control"), as pair keys; None
    unless there are ``count`` of them."""
    pairs = [_pair_key(pair) for _, pair in _joined_pairs(t, seg, before)]
    return pairs if len(pairs) == count and len(set(pairs)) == count else None


_AND_JOINED = re.compile(r"[\s\u00a0]*(?:%|points?|pp|RMSE)?[\s\u00a0]*and[\s\u00a0]+", re.I)
#: Two names joined as a pair: "A and B", "A and the B", "A − B", "A minus B", "A vs B".
_NAMES_JOINED = re.compile(r"(?:'s|’s)?\s*(?:and|[-−–]|minus|vs\.?|versus)\s+(?:the\s+|a\s+|an\s+)?", re.I)


def respectively_order(t: str, seg: Segment, tokens: list[Token],
                       mentions: list[Mention]) -> dict[str, int] | None:
    """"The CNN and the MLP reach 98.1% and 98.7% respectively": the n-th subject named before the
    numbers pairs with the n-th number. None when the segment does not say "respectively"."""
    word = re.search(r"\brespectively\b", t[seg.start : seg.end], re.I)
    values = [tok for tok in tokens if tok.role == "value" and tok.statement and not tok.decoy]
    if not word:
        # "Linear regression and the mean predictor sit at 57.2 and 73.6": two subjects joined by
        # "and" and then two numbers joined by "and" pair in order, as if "respectively" followed
        inside = [tok for tok in values if seg.start <= tok.start < seg.end]
        pairs = [(a, b) for a, b in pairwise(inside) if _AND_JOINED.fullmatch(t, a.end, b.start)
                 and not a.signed and not b.signed]
        if len(pairs) != 1 or pairs[0][0] is not inside[0]:
            return None
        pair = list(pairs[0])
        clause = max([seg.start, *(seg.start + c.end() for c in re.finditer(r"[,;:]\s|[.!?]\s",
                                                                         t[seg.start : pair[0].start]))])
        before = [m for m in mentions if clause <= m.start and m.end <= pair[0].start]
        distinct = list(dict.fromkeys(m.subject for m in before))
        if len(distinct) != 2:
            return None
        first = next(m for m in before if m.subject == distinct[0])
        second = next(m for m in before if m.subject == distinct[1])
        if not _NAMES_JOINED.fullmatch(t, first.end, second.start):
            return None
        order = {s: i for i, s in enumerate(distinct)}
        order.update({"#" + str(tok.start): i for i, tok in enumerate(pair)})
        return order
    listed = [tok for tok in values if tok.end <= seg.start + word.start()]
    if len(listed) >= 2:
        values = listed  # "... 57.2 and 55.9, respectively, so the network wins by 1.3": the list ends there
    if len(values) < 2:
        return None
    before = [m for m in mentions if m.start < values[0].start]
    after = [m for m in mentions if m.start >= values[-1].end]  # "by 86.9 and 87.5, the MLP and the CNN"
    mixed = _listed_items(t, seg, before, values)
    subjects = mixed or listed_comparisons(t, seg, before, len(values)) \
        or listed_subjects(t, before, len(values)) \
        or (listed_subjects(t, after, len(values)) if after else None)
    if subjects is None:
        return None
    order = {s: i for i, s in enumerate(subjects)}
    if mixed is not None:
        order["mixed"] = -1  # levels and comparisons in one list: a level has its place too
    order.update({"#" + str(tok.start): i for i, tok in enumerate(values)})
    return order
