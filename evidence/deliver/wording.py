"""Words are evidence too: a sentence that asserts a comparison is held to what verify shows.

A sentence that names both sides of a claim's comparison and asserts a direction ("beats",
"outperforms", "better than", "significantly") needs verify's verdict ``effect``; one that
asserts sameness ("equivalent", "no difference", "on par", "matches", "indistinguishable") needs
``noise``. Hedged wording ("does not beat", "whether", "cannot", "might") asserts nothing. The
rule is the same for every document and explains itself in one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from evidence.deliver.attribution import Mention
from evidence.deliver.prose import Segment
from evidence.deliver.quantities import ClaimQuantity

#: Confident wording that asserts a shown effect without naming the other side: "a robust effect",
#: "reliably better", "width clearly helps", "a clear advantage", "a consistent improvement".
CONFIDENT = (r"(?:reliabl[ey]|robust(?:ly)?|clear(?:ly)?|consistent(?:ly)?|decisive(?:ly)?)\s+"
             r"(?:better|superior|ahead|helps?|helped|improves?|improved|improvement|advantage|effect|gain|edge"
             r"|positive|negative)")
#: A side said to have the better level: "linear regression has the lower test RMSE of the two" (which
#: way is better follows the metric: lower is better for an RMSE, higher for an accuracy).
HAS_LEVEL_HEAD = (r"(?:has|had|have|gets?|got|shows?|achieves?|achieved)\s+the\s+"
                  r"(?:lower|higher|better|worse|lowest|highest|best|worst)\b")
#: A metric's level compared, as a predicate: "the MLP's RMSE is higher than linear regression's"
#: (better or worse by the metric's direction).
COMPARED_LEVEL = (r"(?:rmse|mse|mae|error|loss|accuracy)\s+(?:is|was|are|were)\s+(?:\w+\s+)?"
                  r"(?:higher|lower|larger|smaller|greater)\s+than")
HAS_LEVEL = (HAS_LEVEL_HEAD + r"(?=\s+(?:[\w-]+\s+){0,2}?"
             r"(?:accuracy|acc|rmse|mse|mae|error|loss|score|f1|auc|r2)\b"
             r"|\s+(?:one\s+)?of\s+the\s+two\b)")
#: A difference called reliable, as a predicate: "CNN vs MLP is about one point and reliable",
#: "the gap is real" (an effect, whichever way).
RELIABLE = (r"(?:is|are|was|were|and)\s+(?:statistically\s+|clearly\s+|very\s+)?(?:reliable|robust|real)"
            r"(?=\s*[.,;:)!]|\s*$)")
DIRECTION = re.compile(
    r"\b(?:beats?|beating|beaten|outperform(?:s|ed|ing)?|out-perform(?:s|ed)?|better than|worse than|"
    r"superior to|inferior to|improves? (?:on|over|upon)|improvement over|surpass(?:es|ed)?|"
    r"exceeds?|exceeded|higher (?:test )?accuracy than|lower (?:test )?accuracy than|more accurate than|"
    r"less accurate than|significant(?:ly)?|wins? (?:over|against)|dominates?|clearly ahead of|"
    r"statistically (?:significant|reliable)"
    r"|(?:is|was|as) the (?:better|stronger) (?:model|one|choice|network"
    r"|method|of the two(?: models)?)|"
    r"(?:wins?|won|leads?|led|ahead)?\s*by an? (?:wide|large|clear|big|comfortable|huge|substantial)"
    r" margin|wins|won|comes? out (?:ahead|on top)|is the winner|" + CONFIDENT + r"|" + RELIABLE + r"|"
    + HAS_LEVEL + r"|" + COMPARED_LEVEL + r")\b",
    re.I)
#: Direction words whose winner is the subject named after them ("the MLP is worse than the CNN").
LOSER_FIRST = re.compile(r"worse than|inferior to|less accurate than|lower (?:test )?accuracy than", re.I)
#: Direction words that need no object: "Wide MLP vs MLP: the wide MLP wins".
INTRANSITIVE = re.compile(r"wins|won|comes? out|is the winner|significant|statistically"
                          r"|(?:is|was|as) the (?:better|stronger)|" + CONFIDENT + r"|" + RELIABLE
                          + r"|" + HAS_LEVEL,
                          re.I)
#: "Not significantly different": true of an unresolved comparison, false of a shown effect.
NO_DIFFERENCE = re.compile(
    r"\b(?:not (?:significantly|statistically(?: significantly)?|reliably|measurably),? (?:different|better"
    r"|worse)|no (?:significant|statistically significant|reliable|measurable) difference"
    r"|(?:is|are|was|were)\s+(?:\w+\s+and\s+)?not\s+(?:statistically\s+)?significant"
    r"|(?:statistically\s+)?(?:insignificant|non-?significant))\b", re.I)
SAMENESS = re.compile(
    # "no difference is shown" reports an absence of evidence, no sameness
    r"\b(?:equivalent|equivalence(?![\s-]+(?:margin|test|bounds?|region|threshold|criterion|TOST)\b)"
    r"|no difference(?!\s+(?:is|was|has been|could be|can be)\s+"
    r"(?:shown|found|detected|established|demonstrated|resolved))"
    r"|on par|par with|match(?:es|ed)?|indistinguishable|"
    r"the same as|as good as|as accurate as|just as accurate|comparable(?: to| with)?|identical(?:ly)?|"
    r"performs? equally|equally (?:well|good|accurate)|no better (?:or|nor) worse|makes no difference|"
    r"does(?:n't| not) matter|no effect|perform(?:s|ed)? the same|do(?:es)? the same|the same performance"
    r"|no (?:real )?difference between|(?:is|are) useless|(?:is|are) pointless|buys nothing"
    r"|perform(?:s|ed)? (?:comparably|similarly|alike)|on a par"
    r"|(?:is|was|are|were)\s+(?:just|only|merely|pure|simply)\s+(?:seed\s+|run-to-run\s+)?noise"
    r"|(?<=\s)(?:tie|(?:are|were)\s+(?:statistically\s+|essentially\s+|effectively\s+|practically\s+)?tied"
    r"|draw)(?=\s*(?:[.,;:!?\"”')]|$|on\b|in\b)))\b", re.I)
HEDGE = re.compile(
    r"\b(?:not|n't|never|cannot|can't|whether|if|might|may|could|unclear|inconclusive|insufficient|"
    r"fails? to|failed to|without|nor|neither|hypothes\w+|predicts?|expected to|would|unless|"
    r"claimed|claims?|question|test(?:s|ed)? whether|too few|no evidence|not shown|before|"
    r"hoped|aim(?:s|ed)? to|probability|chance|likelihood|odds|P\(|how often"
    # "CNNs are routinely said to beat MLPs": a belief reported, not asserted of these models
    r"|said to|believed to|thought to|reputed to|reported to|supposed to|folklore)\b|\?", re.I)
#: A sentence about seed pairs ("in 84 of 100 seed pairs the CNN wins") states P(better), no
#: verdict; one that says its wording may not be written ("'The CNN outperforms the MLP' is what
#: we may not write") mentions the wording, it does not assert it.
PER_PAIR = re.compile(r"\b(?:seed|run)\s+pair(?:s|ings)\b|\bpairings\b|\bof the time\b|\bhead-to-head\b"
                      r"|\ba\s+\w+\s+(?:seed|run)\s+(?:beats|outperforms)\b", re.I)
#: A direction taken back in the sentence's next clause: "A outperforms B by 0.6; this is not yet
#: conclusive", "..., though it is not significant": the sentence asserts no settled win.
RETRACTED = re.compile(
    r"(?:[;:—–]|\s-{1,2}\s|,\s*(?:though|but|although|yet))\s*(?:but\s+|though\s+)?(?:this|that|it|which"
    r"|the\s+(?:difference|gap|lead|result|effect|advantage|edge))\s+(?:is|remains|was|stays|looks)\s+"
    r"(?:(?:still\s+)?not\s+(?:yet\s+)?(?:conclusive|significant|statistically significant|established"
    r"|resolved|reliable|robust)|inconclusive|preliminary|tentative|within (?:the\s+)?noise)\b", re.I)
def _retracted(t: str, pos: int) -> bool:
    """Whether the rest of the sentence from ``pos`` takes the assertion back (its later clauses
    too, though the segment being read ends at a ';')."""
    stop = re.compile(r"[.!?](?:\s|$)").search(t, pos, pos + 300)
    return RETRACTED.search(t, pos, stop.start() if stop else min(len(t), pos + 300)) is not None


MENTIONED = re.compile(r"\b(?:may|can|must|should|could|do|does)\s*(?:not|n't)\s+(?:\w+\s+)?"
                       r"(?:write|say|claim|state|report|conclude)\b"
                       r"|\b(?:never|don't|do not)\s+(?:write|say|claim)\b"
                       # "No sentence says the CNN "significantly" beats the MLP": a check of the text
                       r"|\bno\s+(?:sentence|document|slide|paragraph|section|caption|one|text)\s+(?:now\s+)?"
                       r"(?:says|said|claims|states|writes|uses)\b", re.I)


#: After a quotation: the sentence's verdict on it ('"A is reliably better" is too strong').
REJECTED_AFTER = re.compile(r"\s*[,:]?\s*(?:(?:is|was|are|were|would be|sounds)\s+(?:\w+\s+)?"
                            r"(?:too strong|wrong|not supported|unsupported|misleading|an overclaim"
                            r"|overstated|false|incorrect"
                            r"|not what (?:the|our) (?:evidence|data) (?:says|show)s?)|overstates|overclaims"
                            r"|goes too far|went too far)\b", re.I)
_QUOTES = (('"', '"'), ("“", "”"), ("'", "'"), ("‘", "’"))


def _quoted_and_rejected(t: str, seg: Segment, pos: int) -> bool:
    """Whether the assertion at ``pos`` lies in a quotation the sentence then rejects:
    '"Wider MLPs are reliably better" is too strong' mentions the wording to refute it."""
    for opening, closing in _QUOTES:
        start = t.rfind(opening, seg.start, pos)
        if start < 0 or (opening == "'" and start > seg.start and t[start - 1].isalnum()):
            continue
        end = t.find(closing, pos, seg.end)
        if end >= 0 and REJECTED_AFTER.match(t, end + 1):
            return True
    return False


@dataclass(frozen=True)
class WordingIssue:
    claim: ClaimQuantity
    start: int
    end: int
    words: str
    asserts: str  # "direction" | "sameness"
    reason: str


#: Between an assertion and a subject named after it: the start of another clause.
_CLAUSE_BREAK = re.compile(r",\s*(?:so|but|which|while|whereas|because|since|though|although|hence|thus)\b|;",
                           re.I)


def _pair(m: re.Match[str], mentions: list[Mention], coordinated: bool = False) -> frozenset[str]:
    """The two subjects an assertion is about: the nearest named before it and after it, or,
    with none after, the last two named before it ("the CNN and the MLP are equivalent").
    ``coordinated`` (sameness): two subjects joined by "and" right before it are the pair, whatever
    follows ("A and B perform the same, and both beat C")."""
    before = [x for x in mentions if x.end <= m.start()]
    # after it only within its clause: "makes no difference to accuracy (...), so capacity is not
    # what the CNN adds" names the CNN in the next clause, no side of the sameness
    after = [x for x in mentions if x.start >= m.end() and x.start - m.end() < 80
             and not _CLAUSE_BREAK.search(m.string, m.end(), x.start)]
    if coordinated and len(before) >= 2 and before[-2].subject != before[-1].subject \
            and re.fullmatch(r"\s*(?:and|&)\s+(?:the\s+)?", m.string[before[-2].end : before[-1].start],
                             re.I) \
            and not re.search(r"[,;:.]", m.string[before[-1].end : m.start()]):
        return frozenset({before[-2].subject, before[-1].subject})
    if before and after and after[0].subject != before[-1].subject:
        return frozenset({before[-1].subject, after[0].subject})
    if len(before) >= 2:
        return frozenset({before[-1].subject, before[-2].subject})
    if not before and len(after) >= 2 and after[0].subject != after[1].subject:
        return frozenset({after[0].subject, after[1].subject})  # "no difference between A and B"
    return frozenset()


def _asserts(t: str, seg: Segment, pattern: re.Pattern[str], mentions: list[Mention],
             sides: frozenset[str], cited: bool = False) -> re.Match[str] | None:
    return next(_assertions(t, seg, pattern, mentions, sides, cited), None)


def _assertions(t: str, seg: Segment, pattern: re.Pattern[str], mentions: list[Mention],
                sides: frozenset[str], cited: bool = False) -> Iterator[re.Match[str]]:
    """Every unhedged assertion of ``pattern`` about the two ``sides`` in the segment, in order."""
    for m in pattern.finditer(t, seg.start, seg.end):
        if not cited and _pair(m, mentions, pattern is SAMENESS) != sides:
            continue
        if pattern is SAMENESS and re.match(r"match(?:es|ed)?\b", m.group(0), re.I) and \
                re.match(r"\s*(?:its|their|the (?:evidence|claim|value|table|figure))",
                         t[m.end() : m.end() + 30]):
            continue  # "matches its evidence": not a comparison of the subjects
        if pattern is DIRECTION and not INTRANSITIVE.match(m.group(0)) \
                and not any(x.start >= m.end() for x in mentions):
            continue  # "both the MLP and the CNN beat it": co-subjects, the compared one unnamed
        # a hedge counts in the assertion's own clause ("Width does not matter: the 128-unit MLP
        # is equivalent to ..." asserts sameness after the colon)
        lo = max(seg.start, m.start() - 50)
        marks = [lo + c.end() for c in re.finditer(r"[:;]", t[lo : m.start()])]
        clause = marks[-1] if marks else lo
        after = re.search(r"[;:]", t[m.end() : min(seg.end, m.end() + 14)])  # not the next clause's hedge
        window = t[clause : m.end() + after.start() if after else min(seg.end, m.end() + 14)]
        if pattern is SAMENESS and m.group(0).lower().startswith("no "):
            window = t[clause : m.start()]
        elif pattern is SAMENESS and HEDGE.search(m.group(0)):  # "does not matter": its own "not"
            window = t[clause : m.start()] + " " + t[m.end() : m.end() + (after.start() if after else 14)]
        # a win per seed pair is a fact of its own clause ("beats it in 84% of the seed pairs"),
        # not of the next ("clearly beats the MLP: over pairs of seeds, it wins the head-to-head")
        clause_end = re.search(r"[;:]", t[m.end() : seg.end])
        pair_span = (clause, m.end() + clause_end.start() if clause_end else seg.end)
        if HEDGE.search(window) or PER_PAIR.search(t, *pair_span) \
                or MENTIONED.search(t, seg.start, seg.end) or _quoted_and_rejected(t, seg, m.start()) \
                or (pattern is not SAMENESS and _retracted(t, m.end())):
            continue
        yield m


#: A direction denied: "A does not beat B", "A is no better than B", "A fails to outperform B";
#: "no evidence that A beats B" (the winner named after it).
DENIED = re.compile(
    r"\b(?:(?:does|did|do)\s*(?:not|n't)\s+|fails?\s+to\s+|failed\s+to\s+|never\s+|cannot\s+|can't\s+)"
    r"(?:beat|outperform|improve\s+(?:on|over|upon)|exceed|surpass)\b"
    r"|\b(?:is|was|are|were)\s+(?:not|no)\s+better\s+than\b"
    r"|\bno\s+(?:evidence|sign|indication)\s+that\b(?=[^.;]*\b(?:beats?|outperforms?|better\s+than)\b)", re.I)


def _denied(t: str, seg: Segment, claim: ClaimQuantity, mentions: list[Mention]) -> re.Match[str] | None:
    """A denial that verify's verdict contradicts: the claim shows an effect, supported, with the
    side the sentence says is not better as the better one."""
    better = claim.better_side
    if claim.classification != "effect" or claim.supported is False or better is None:
        return None
    sides = {g[0] for g in claim.subjects[:2]}
    if MENTIONED.search(t, seg.start, seg.end):
        return None
    for m in DENIED.finditer(t, seg.start, seg.end):
        if re.search(r"\b(?:if|whether|unless|would|might|could|suppose|may|hypothes\w+|expected|claimed)\b"
                     r"|\?", t[seg.start : m.start()], re.I) or "?" in t[m.end() : seg.end]:
            continue  # "if the MLP does not beat the control, ...": a condition, not a denial
        if m.group(0).lower().startswith("no "):
            after = [x for x in mentions if x.start >= m.end()]
            said = after[0].subject if after else None
        else:
            before = [x for x in mentions if x.end <= m.start()]
            said = before[-1].subject if before else None
        if said == better and len({x.subject for x in mentions} & sides) == 2:
            return m
    return None


#: Before a subject's name: another work's model ("their MLP", "the authors' linear model").
_THEIRS = re.compile(r"\b(?:their|the\s+authors(?:'|’)|the\s+(?:paper|submission|baseline paper)(?:'s|’s))"
                     r"\s+(?:own\s+|reported\s+|tuned\s+)?$", re.I)


def wording_issues(t: str, seg: Segment, claims: Sequence[ClaimQuantity],
                   mentions: list[Mention], cited: Sequence[str] = ()) -> list[WordingIssue]:
    """Comparisons this segment asserts that verify does not support, one per comparison.
    ``cited``: the comparison claims the sentence cites (a macro, a link): where it cites exactly
    one and does not name both sides ("doubling the width is statistically equivalent to the default
    (\\evWidthIsNoise{})"), its assertion is about that claim."""
    sentence = t[seg.start : seg.end].strip()
    if sentence.endswith("?") or re.match(r"(?:does|do|did|is|are|can|could|will|would|should|whether)\b",
                                           sentence, re.I):
        return []  # a question asserts nothing
    # "Their MLP is worse than their linear model": another work's models, no claim's sides
    mentions = [m for m in mentions if not _THEIRS.search(t, max(0, m.start - 40), m.start)]
    named = {m.subject for m in mentions}
    issues: list[WordingIssue] = []
    seen: set[frozenset[str]] = set()
    every = mentions
    for claim in claims:
        if not claim.comparison or len(claim.subjects) < 2 or claim.classification is None:
            continue
        sides = frozenset(g[0] for g in claim.subjects[:2])
        both = _both_named(t, seg, claim) or _change_named(t, seg, claim, every)
        # "the two MLPs": the collective names both sides; the "MLPs" inside it is not a third mention
        mentions = every if both is None else sorted(
            [*(x for x in every if not (both[0].start <= x.start and x.end <= both[0].end)), *both],
            key=lambda x: x.start)
        named = {m.subject for m in mentions}
        by_citation = list(cited) == [claim.id] and not sides <= named
        by_name = _comparison_named(t, seg, claim)  # "verify classifies cnn_vs_mlp as ..."
        if (not sides <= named and not by_citation and not by_name) or sides in seen:
            continue
        verdict = claim.classification
        stated = _stated_verdict(t, seg) if by_name else None
        if stated is not None and stated[1] != verdict:
            seen.add(sides)
            said = stated[0]
            issues.append(WordingIssue(
                claim, said.start(), said.end(), said.group(0), "verdict",
                f"'{said.group(0)}' gives {claim.id}'s verdict as {stated[1]}, but "
                f"verify classifies it as {verdict}"))
            continue
        directions = list(_assertions(t, seg, DIRECTION, mentions, sides, by_citation))
        direction = directions[0] if directions else None
        sameness = _asserts(t, seg, SAMENESS, mentions, sides, by_citation)
        a, b = (g[0] for g in claim.subjects[:2])
        no_difference = next((m for m in NO_DIFFERENCE.finditer(t, seg.start, seg.end)
                              if _pair(m, mentions, True) == sides), None)
        if no_difference is not None and verdict == "effect":
            seen.add(sides)
            issues.append(WordingIssue(
                claim, no_difference.start(), no_difference.end(), no_difference.group(0), "sameness",
                f"'{no_difference.group(0)}' says {a} and {b} were not shown to differ, but verify "
                f"classifies {claim.id} as effect"))
            continue
        denial = _denied(t, seg, claim, mentions)
        if denial is not None:
            seen.add(sides)
            issues.append(WordingIssue(
                claim, denial.start(), denial.end(), denial.group(0), "direction",
                f"'{denial.group(0)}' denies that {claim.better_side} is better, but verify shows it is "
                f"({claim.id}: effect)"))
            continue
        better = claim.better_side
        if direction is not None and verdict == "effect" and better is not None:
            # "has the higher RMSE and so does better than": the assertion that gets it wrong decides
            wrong = next((d for d in directions
                          if (w := _winner(d, mentions, claim)) is not None and w != better), None)
            direction = wrong or direction
        winner = _winner(direction, mentions, claim) if direction is not None else None
        if direction is not None and verdict == "effect" and claim.supported is not False \
                and winner is not None and better is not None and winner != better:
            seen.add(sides)
            issues.append(WordingIssue(
                claim, direction.start(), direction.end(), direction.group(0), "direction",
                f"'{direction.group(0)}' makes {winner} the better one, but verify shows "
                f"{better} is better ({claim.id})"))
        elif direction is not None and (verdict != "effect" or claim.supported is False):
            seen.add(sides)
            issues.append(WordingIssue(
                claim, direction.start(), direction.end(), direction.group(0), "direction",
                f"'{direction.group(0)}' asserts a difference between {a} and {b}, but verify "
                f"classifies {claim.id} as {verdict}" + (" and the claim is not supported"
                                                         if claim.supported is False else "")))
        elif sameness is not None and verdict != "noise":
            seen.add(sides)
            issues.append(WordingIssue(
                claim, sameness.start(), sameness.end(), sameness.group(0), "sameness",
                f"'{sameness.group(0)}' asserts that {a} and {b} do not differ, but verify classifies "
                f"{claim.id} as {verdict} (sameness needs the verdict noise)"))
    return issues


#: A verdict stated in verify's words: "classifies cnn_vs_mlp as an effect", "verdict: noise",
#: "was labelled insufficient evidence".
_VERDICT = re.compile(r"\b(?:classif(?:y|ies|ied)\b[^.;\n]{0,60}?\bas|(?:classified|labell?ed|marked|called)"
                      r"(?:\s+as)?|verdict\s*(?:is|was|:|=|of)?|(?:is|was)\s+(?:an?\s+)?)\s*[`*_]*\s*(?:an?\s+)?"
                      r"(?P<verdict>effect|noise|insufficient[_ ]evidence|bug)\b", re.I)
_NEGATED = re.compile(r"\b(?:not|no\s+longer|never|nor)\b|n't\b", re.I)


def _comparison_named(t: str, seg: Segment, claim: ClaimQuantity) -> bool:
    """Whether the segment names the claim's comparison by verify's name for it ("cnn_vs_mlp")."""
    name = claim.verify_name
    return bool(name) and re.search(rf"(?<![\w.-]){re.escape(name or '')}(?![\w-])",
                                    t[seg.start : seg.end]) is not None


def _stated_verdict(t: str, seg: Segment) -> tuple[re.Match[str], str] | None:
    """A verdict stated unhedged in verify's own words, and its spelling in verify's report, in a
    segment that names the comparison by verify's name for it (:func:`_comparison_named`)."""
    for m in _VERDICT.finditer(t, seg.start, seg.end):
        clause = t[max(seg.start, m.start() - 60) : m.start()]
        if not (_NEGATED.search(clause) or HEDGE.search(clause.rsplit(",", 1)[-1])):
            return m, m.group("verdict").lower().replace(" ", "_")
    return None


#: "the two widths", "both widths": a plural that names both sides of a comparison at once.
_COLLECTIVE = re.compile(r"\b(?:the\s+two|both(?:\s+the)?)\s+([a-z][\w-]*?)(?:es|s)\b", re.I)


def _both_named(t: str, seg: Segment, claim: ClaimQuantity) -> list[Mention] | None:
    """The two sides of a comparison named together by a word of one side's name in the plural
    ("the two widths", "both MLPs" for the wide MLP against the MLP, one a variant of the
    other): a mention of each, where it stands."""
    a, b = ({p for p in re.split(r"[_\-\s]+", g[0].lower()) if p} for g in claim.subjects[:2])
    if not (a < b or b < a):
        return None  # only two variants of one thing (the MLP and the wide MLP) share a plural
    words = {w.lower() for g in claim.subjects[:2] for w in g if " " not in w}
    for m in _COLLECTIVE.finditer(t, seg.start, seg.end):
        if m.group(1).lower() in words:
            return [Mention(m.start(), m.end(), g[0], m.group(0)) for g in claim.subjects[:2]]
    return None


#: After a change word: it is another thing's ("the width of the interval", "width-first search");
#: before it, a hyphen ("a zero-width interval").
_OTHER_THINGS_CHANGE = re.compile(r"[-‑]|\s+of\b")
_MODEL_NOUN = re.compile(r"\b(?:model|network|net|one|variant|mlp|cnn|classifier|regressor)s?$", re.I)


def _change_named(t: str, seg: Segment, claim: ClaimQuantity,
                  mentions: list[Mention]) -> list[Mention] | None:
    """A comparison of a variant with its base named by the change alone: "width does not matter",
    "widening buys nothing" for the wide MLP against the MLP (a name of the variant that is no
    model's name: the change between the two). Only for a variant of the other side (its name
    extends the other's: ``mlp_wide`` of ``mlp``), where the change is all that differs."""
    a, b = (g[0] for g in claim.subjects[:2])
    base, variant = (a, b) if b.startswith(a + "_") else (b, a) if a.startswith(b + "_") else (None, None)
    if base is None or any(m.subject == base for m in mentions if seg.start <= m.start < seg.end):
        return None
    for m in mentions:
        if seg.start <= m.start < seg.end and m.subject == variant \
                and base not in m.words.lower() and not _MODEL_NOUN.search(m.words) \
                and not _OTHER_THINGS_CHANGE.match(t, m.end) and t[m.start - 1 : m.start] not in ("-", "‑"):
            return [Mention(m.start, m.end, g[0], m.words) for g in claim.subjects[:2]]
    return None


_MARGIN_VERB = re.compile(r"\b(?:beat|beats|outperforms?|outperformed|leads?|led|exceeds?|surpass(?:es)?"
                          r"|tops?)\b", re.I)


def _named_before_or_other(m: re.Match[str], mentions: list[Mention], claim: ClaimQuantity,
                           good: bool) -> str | None:
    """The side named last before the words ``m`` where they say it is the better one (``good``),
    else the comparison's other side; None where no side is named before them."""
    sides = [g[0] for g in claim.subjects[:2]]
    before = [x for x in mentions if x.end <= m.start() and x.subject in sides]
    if not before:
        return None
    return before[-1].subject if good else next((s for s in sides if s != before[-1].subject), None)


def _winner(m: re.Match[str], mentions: list[Mention], claim: ClaimQuantity) -> str | None:
    """The subject a direction word makes the better one: named before "beats", "wins", "better
    than"; after "worse than". "Exceeds" is better only where higher is better (an RMSE that
    exceeds another's is worse)."""
    if re.match(r"significant|statistically|by an? ", m.group(0), re.I) \
            or re.fullmatch(RELIABLE, m.group(0), re.I):
        return None  # "significantly": which way is left to the rest of the sentence
    if re.fullmatch(CONFIDENT, m.group(0), re.I) \
            and not re.search(r"(?:better|superior|ahead)$", m.group(0), re.I):
        return None  # "a robust effect", "a clear advantage": an effect, whichever way
    if re.match(r"\s*by an? ", m.group(0), re.I):
        # "A beats B by a wide margin": the winner is the one before the verb, not B before "by"
        verbs = list(_MARGIN_VERB.finditer(m.string, max(0, m.start() - 120), m.start()))
        if verbs:
            verb = verbs[-1].start()
            before = [x for x in mentions if verb - 120 < x.end <= verb]
            return before[-1].subject if before else None
    if (level := re.fullmatch(HAS_LEVEL_HEAD, m.group(0), re.I)) is not None:
        word = level.group(0).split()[-1].lower()
        good = word in ("better", "best") or (word in ("lower", "lowest", "higher", "highest")
                                               and (word in ("lower", "lowest")) == claim.lower_better)
        return _named_before_or_other(m, mentions, claim, good)
    if (compared := re.fullmatch(COMPARED_LEVEL, m.group(0), re.I)) is not None:
        up = re.search(r"higher|larger|greater", compared.group(0), re.I) is not None
        # a higher RMSE is worse, a higher accuracy better
        return _named_before_or_other(m, mentions, claim, up != claim.lower_better)
    if re.match(r"exceed|surpass", m.group(0), re.I) and claim.lower_better:
        return _named_before_or_other(m, mentions, claim, False)
    if LOSER_FIRST.match(m.group(0)):
        after = [x for x in mentions if x.start >= m.end()]
        return after[0].subject if after else None
    before = [x for x in mentions if x.end <= m.start()]
    return before[-1].subject if before else None

