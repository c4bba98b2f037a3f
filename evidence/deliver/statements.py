"""Numbers in prose: decoys masked, every remaining number read with its unit and its role.

Works on the masked text of :mod:`evidence.deliver.prose` (non-prose already spaces). Inline
decoys are masked first (URLs, DOIs, arXiv ids, dates, versions, citations, page ranges,
references to sections, tables, figures and equations); token-level rules then mark years,
identifier parts (``resnet50``, ``CIFAR-10``), fractions, times, settings (a 95% CI, a 20% test
split, a learning rate of 0.01) and counts of things (1,797 images, 15 epochs) as decoys. What is
left is read with its *role*: a point value, one end of an interval or range, a number of seeds,
a seeds-needed estimate, a probability.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_TOOLS = (
    r"python|py|pytorch|torch|torchvision|cuda|cudnn|nccl|numpy|scipy|pandas|jax|jaxlib"
    r"|tensorflow|tf|keras|sklearn|scikit-learn|transformers|matplotlib|jinja2?|doit|ubuntu"
    r"|debian|macos|windows|linux|gcc|clang|llvm|node|nodejs|java|rust|go|latex|pip|conda"
    r"|version|ver\.|release|rel\.|v\.|python3|evidence|markdown-it-py|pylatexenc|release"
)
_REF_ONE = (
    r"section|sec\.|§|table|tab\.|figure|fig\.|equation|eq\.|eqn\.|appendix|app\.|chapter|ch\."
    r"|algorithm|alg\.|line|theorem|thm\.|lemma|corollary|definition|def\.|proposition"
    r"|prop\.|step|footnote|listing|page|part|example|exercise|row|column|col\.|panel|ref\."
    r"|reference|no\.|vol\.|volume|issue|item|note|stage|phase|round|iteration|checkpoint|seed|run"
    r"|experiment|exp\.|hypothesis|question|rq|claim|slide|task|trial|fold|layer|block|epoch"
)
_REF_MANY = (
    r"sections|secs\.|§§|tables|figures|figs\.|equations|eqs\.|appendices|chapters"
    r"|algorithms|lines|theorems|lemmas|definitions|propositions|steps|footnotes|listings"
    r"|pages|parts|examples|exercises|rows|columns|panels|refs\.|references|nos\.|seeds|runs|slides"
)
_NUMREF = r"~?\(?\d+(?:\.\d+)*[a-z]?\)?"

#: Prose-level decoys masked in every dialect, in order. Each entry says what it removes.
_DECOY_PATTERNS_SOURCE: list[tuple[str, int]] = [
    (r"<!--[\s\S]*?(?:-->|\Z)", 0),  # HTML comments
    (r"<sup>[^<]*</sup>", 0),  # footnote markers
    (r"</?[A-Za-z][^>\n]*>", 0),  # HTML tags and their attributes
    # inline code, and a version in parentheses right after it ("`evidence` (0.9)")
    (r"(?<!`)(`+)(?!`)(?:(?!\n[ \t]*\n)[\s\S])+?(?<!`)\1(?!`)"
     r"(?:[ \t]*\(v?\d+(?:\.\d+)+[\w.-]*\))?", 0),
    (r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)", 0),  # Markdown link targets
    (r"(?:https?://|ftp://|file://|\bwww\.)[^\s<>)\]]*[^\s<>)\].,;:]", 0),  # URLs
    (r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", 0),  # e-mail addresses
    (r"\b(?:doi:\s*)?10\.\d{4,9}/[^\s\]>),;]*[^\s\]>),;.]", re.I),  # DOIs
    (r"\b(?:arXiv:\s*)?\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?\b", re.I),  # arXiv ids
    (r"\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b", 0),  # ISO dates
    (r"\b\d{4}[/-]\d{2}\b", 0),  # 2024-05, 2024/25
    (r"\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b", 0),  # 05/01/2024, 01.05.2024
    (rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b", 0),  # May 1, 2024
    (rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?\b", 0),  # 1 May 2024
    (rf"\b{_MONTH}\s+\d{{4}}\b", 0),  # May 2024
    (rf"(?<![\w-])(?:{_TOOLS})\s*(?:[=<>~!]=\s*|v)?\d+(?:\.\d+)*(?:[a-z]+\d*)?\b", re.I),
    (r"(?<![\w.])v\d+(?:\.\d+)+\b", 0),  # v1.2.3
    (r"[=<>~!]=\s*v?\d+(?:\.\d+)*\b", 0),  # requirement pins: torch>=2.3
    (r"\[\^[^\]\n]*\]", 0),  # Markdown footnote references
    (r"\[\s*\d+[a-z]?(?:\s*[,;–—-]\s*\d+[a-z]?)*\s*\]", 0),  # numeric citations [3, 4]
    # a list of three or more numbers ("acc = [0.983, 0.986, 0.989]"): items' values; an interval has two ends
    (r"\[\s*[-+−]?\d*\.?\d+%?(?:\s*,\s*[-+−]?\d*\.?\d+%?){2,}\s*,?\s*\]", 0),
    (r"\b(?:pp?|pages?)\.?\s*\d+(?:\s*(?:[-–—]|--)\s*\d+)?", re.I),  # page numbers and ranges
    # (not "a CNN seed beats an MLP seed 84% of the time": a percentage is no reference)
    # (its number right after its word, never across a table cell: "mean of 5 seeds & 98.7\,\%")
    (rf"(?<![\w-])(?:{_REF_ONE})[ \t\u00a0]{{0,2}}{_NUMREF}(?!\d|\.\d|\s*(?:%|\\%|percent\b))",
     re.I),  # Table 2, Section 3.2, Eq. (3)
    (rf"(?<![\w-])(?:{_REF_MANY})[ \t\u00a0]{{0,2}}{_NUMREF}(?:\s*(?:,|and|&|or|to|[-–—])\s*{_NUMREF})*",
     re.I),  # Tables 2 and 3, Sections 3.1–3.4
    # an international phone number: a "+" country code and three or more groups of digits
    # (before the equation references: "+1 (617) 555-0142" holds one)
    # ("+43 1 234 5678", "+1-555-010-9999"; never a signed decimal "+87.5 [81.1, 93.9]")
    (r"(?<![\w.])\+\d{1,3}(?:[ \u00a0-]\(?\d{1,5}\)?){2,}[ \u00a0-]\d{3,5}(?!\.?\d|\s*%)", 0),
    (r"\b\d+\(\d+\)", 0),  # volume(issue) in bibliographies: 34(2)
    (r"\(\d{1,3}[a-z]?\)", 0),  # equation and enumeration references: (3)
    (r"\^\{?\d+\}?", 0),  # superscript footnote markers
    (r"(?<![\w.])\d*\.?\d+(?:\s?(?:mm|cm|em|ex|bp|pc|sp)|in)\b(?!\s+(?:the|a|an|our|of|each)\b)", 0),
    # a length in points where LaTeX takes one ("\vspace{6pt}", "width=0.5pt", "[10pt]"); "+85.1 pt"
    # in prose is a difference in percentage points
    (r"(?<=[{=\[,])\s*\d*\.?\d+\s?pt\b", 0),
    (r"\[[^\]\n]*=[^\]\n]*\]", 0),  # key=value options: [width=0.8\linewidth]
    # lr=0.05 (not a difference written as its two sides: "CNN − MLP = 0.6", "linear minus MLP = 1.3")
    # ("P = 0.84" is left to the tokenizer: after a probability it states P(better))
    (r"(?<!− )(?<!- )(?<!– )(?<!−)(?<!minus )(?<!\$-\$ )\b(?!n\s*=)(?!P\s*=)"
     # "test acc = 0.987%", "MLP improvement = 1.3%": a metric's value or a difference, no setting
     r"(?!(?i:acc|accuracy|rmse|mae|mse|f1|auc|improvement|gain|difference|diff|delta|lead|margin|Δ)\s*=)"
     # "mlp_beats_linear = 1.3358": a result named by its claim-like id, no setting
     r"(?![\w-]*(?i:_beats_|_vs_|_test_|accuracy|_rmse)[\w-]*\s*=)"
    r"[\w-]+\s*=\s*[-−]?\d[\w.eE+-]*"
     r"(?:\s*,\s*[\w-]+\s*=\s*[-−]?\d[\w.eE+-]*)*", 0),
    (r"\b\d+(?:\.\d+)?\s*[x×]\s*\d+(?:\.\d+)?(?:\s*[x×]\s*\d+(?:\.\d+)?)*\b", 0),  # 8x8, 2 × 3
    # identifiers: resnet50, GPT-4, mlp-s0, A100 (not the metric names F1, R2)
    (r"\b(?!(?:F1|R2|L1|L2|F2)\b)[A-Za-z]+[-_]?\d+[A-Za-z]*(?:[-_.]\d+[A-Za-z]*)*\b", 0),
    # a reference number of digits joined by a slash and a hyphen: a grant "4417/2-1", a file "12/3-7"
    (r"(?<![\w.])\d+(?:/\d+)+-\d+(?:[-/]\d+)*\b|(?<![\w.])\d+-\d+(?:/\d+)+\b", 0),
    (r"(?<![\w.])\d+(?:st|nd|rd|th)\b", 0),  # ordinals
    (r"\b(?:Q|Question|Exercise|Problem|Task|Part)\s*\d+[a-z]?\.?\s*\(\s*\d+\s*(?:pts?|points?|marks?)\s*\)",
     re.I),  # "Q3 (6 pts)": a grading mark
    (r"(?:[$€£]\s*)?\d+(?:\.\d+)?\s*(?:USD|EUR|GBP|CHF|dollars?|euros?)\b", 0),  # 0.00266 USD: money
    (r"\b(?=[a-f]{0,63}\d)[0-9a-f]{7,64}\b", 0),  # digests and commit ids
    (r"\b(?:19|20)\d{2}[a-z]?\b", 0),  # years, also 2021a in author-year citations
]


@cache
def decoy_patterns() -> list[re.Pattern[str]]:
    """Compiled on first use: a doit no-op never reconciles."""
    return [re.compile(pattern, flags) for pattern, flags in _DECOY_PATTERNS_SOURCE]


#: The first patterns mask what is not prose whether or not it holds a number (comments, tags,
#: code, link targets, URLs: words in them are no subjects either); the rest mask numbers only.
_TEXT_PATTERNS = 6


@lru_cache(maxsize=32)
def mask_decoys(t: str) -> str:
    """``t`` with every decoy blanked (same length). The number patterns run only on the blocks
    (runs of lines between blank lines) that hold a digit: most of a document holds none."""
    from evidence.deliver.prose import spaces

    patterns = decoy_patterns()
    t = _mask_one_run(_mask_superseded(t))
    for pattern in patterns[:_TEXT_PATTERNS]:
        t = pattern.sub(lambda m: spaces(m.group(0)), t)
    blocks = re.split(r"(\n[ \t]*\n)", t)
    for n, block in enumerate(blocks):
        if n % 2 == 0 and any(c.isdigit() for c in block):
            for pattern in patterns[_TEXT_PATTERNS:]:
                block = pattern.sub(lambda m: spaces(m.group(0)), block)
            blocks[n] = block
    return "".join(blocks)


@dataclass
class Token:
    start: int
    end: int  # end of the stated text, unit included
    value: float
    decimals: int
    unit: str  # "%", "pts" (points), letters glued to the number ("M", "x"), or ""
    follow: str  # masked text after the number, for spaced unit suffixes
    integer: bool
    decoy: bool = False  # not a quantity at all: never reported
    statement: bool = True  # a quantity to check (False: a ± term, a count of things)
    role: str = "value"  # value | ci_low | ci_high | ci_end (either end) | ci_half | n | seeds_needed
    # | spread (an unnamed ± term: the half-width, the SD or the standard error)
    # | prob_better
    approximate: bool = False  # "about 10", "~10", "roughly 10"
    bound: str = ""  # ">" for "over 98%", "at least 98%"; "<" for "below 99%", "under 99%"
    signed: bool = False
    word: bool = False  # a count written in words ("five seeds"): checked, never hand-typed
    setting: bool = False  # a setting named before it ("learning rates 0.003 to 0.1"): a decoy


_NUM_RE = re.compile(r"(?<![\w.])[+±]?(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d+|(?=\.\d))((?:\.\d+)*)"
                     r"(?:[eE][-+]?\d+)?")
_WORD_NUMBERS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "a dozen": 12, "dozen": 12,
}
_WORD_NUMBER_RE = re.compile(r"\b(?:" + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True)) + r")\b", re.I)
#: A percent sign after the number; LaTeX math and spacing ("$0.9$\,\%") leave several spaces.
_PERCENT_RE = re.compile(r"[ \u00a0\u2009\u202f]{0,6}(?:%|percent\b|per cent\b)", re.I)
_POINTS_RE = re.compile(r"[ \u00a0\u2009\u202f-]{0,2}(?:percentage[ -]points?|pct\.?[ -]points?"
                        r"|points?\b|pts?\b"
                        r"|pp\b|p\.p\.)", re.I)
#: After an integer: its decimal point, a line break, and its decimals right before a percent sign.
#: After an interval's end: the rest of the bracket, then a percent sign ("4.8, 17.8] %", "17.8] %").
_BRACKET_PERCENT = re.compile(r"(?:[ \u00a0\u2009\u202f]*[,;–-][ \u00a0\u2009\u202f]*[-−+]?\d+(?:\.\d+)?)?"
                              r"[ \u00a0\u2009\u202f]*[\])][ \u00a0\u2009\u202f]{0,6}(?:%|percent\b)")
_BROKEN_DECIMAL = re.compile(r"\.[ \t]*\n[ \t>]*(\d+)(?=[ \u00a0\u2009\u202f]?%)")
#: After a number: "of every 100", "out of 100", "in every hundred": it is a percentage.
_PER_HUNDRED = re.compile(r"[ \u00a0]+(?:out\s+)?(?:of|in)\s+(?:every\s+|each\s+|a\s+)?(?:100|hundred)\b"
                          r"(?!\.\d)", re.I)
_GLUED_RE = re.compile(r"[A-Za-zµ×]+")
#: A sign spelled before a number ("minus 22.6", "plus 0.5"), not a subtraction ("57.2 minus 55.9").
_MINUS_WORD = re.compile(r"(?:^|[^\d%)\]}\s])[\s\u00a0]*\b(minus|plus)[ \u00a0]+$", re.I)
#: A sign before a siunitx wrapper, as the masked text has it: "$+\num{8.69}$" is "+ num 8.69".
_SIGN_BEFORE_WRAPPER = re.compile(r"(?<![\w.%)\]])[\s\u00a0]*([+−-])[\s\u00a0]*(?:num|SI|qty)[\s\u00a0]+$")
#: After a count: the seed pairs it is a share of ("wins 21 of the 25 seed pairings"): P(better) as a count.
_PAIR_COUNT = re.compile(r"[ \u00a0]+(?:out\s+)?of\s+(?:the\s+|all\s+|every\s+)?(\d+)[ \u00a0]+"
                         r"(?:random\s+|possible\s+)?(?:(?:seed|run)[- ]?)?"
                         r"(?:pairs|pairings|pairwise comparisons)\b", re.I)
#: After a percentage: a confidence level or a share of the data, not a result.
_LEVEL_AFTER = re.compile(
    r"[\s\u00a0-]*(?:(?:(?!(?:and|but|or|while|whereas|with|the|its|their|is|was|are|were)\b)[A-Za-z'-]+\s)"
    r"{0,2}(?:CIs?\b|confidence|credible|intervals?\b|level\b)|quantile"
    r"|percentile|significance|power\b|(?:two-sided\s+)?Student|coverage\b)", re.I)
#: Before a percentage: what names a confidence level ("the CI is 95%", "at the 99% level").
_LEVEL_BEFORE = re.compile(r"(?:\bCIs?|\bintervals?|\bconfidence|\bcoverage|\bpower)\s*(?:level\s*)?"
                           r"(?:is|of|at|=|:)?\s*(?:a|the)?\s*$", re.I)
#: The levels a confidence interval or a power analysis is stated at.
_LEVELS = frozenset({80.0, 90.0, 95.0, 99.0, 99.9})
_SHARE_VERBS = re.compile(r"\b(?:use[sd]?|using|hold(?:s|ing)? out|held out|reserve[sd]?|set aside"
                          r"|sample[sd]?"
                          r"|split|train(?:s|ed)? on|keep|kept|allocate[sd]?|assign(?:s|ed)?|take[sn]?|took"
                          r"|the same|a fixed|randomly|drop(?:s|ped)?|mask(?:s|ed)?|corrupt\w*"
                          r"|prune[sd]?|remove[sd]?|only|first|last|leaves?|left)\b[^.;,]{0,16}$", re.I)
_SETTING_AFTER = re.compile(
    r"[\s\u00a0-]*(?:(?!(?:on|in|at|for|over|across|with|from)\b)[A-Za-z'-]+[ -]){0,3}"
    r"(?:held[- ]out|hold[- ]out|splits?\b|subsets?\b|partitions?\b|portion"
    r"|share\b|fraction\b|sample\b|of (?:the |our |all )?(?:data|samples|examples|images|digits"
    r"|training|test|validation|dataset|labels|points|inputs|pixels|rows)|quantile|percentile"
    r"|significance|dropout|masking|sparsity|pruning|warm-?up|noise\b|label noise|corruption|of labels"
    r"|of the labels)", re.I)
#: After points: the stated level they are counted from ("1.2 points above 10%").
_FROM_STATED_LEVEL = re.compile(
    r"\s+(?:above|below|over|under)\s+(?:the\s+|a\s+)?(?:[~≈]?\d+(?:\.\d+)?\s*(?:%|percent)"
    r"|(?:chance|guessing|random guessing)\b)", re.I)  # "1.2 points above chance": its distance from it
#: After "N-point": what the number sets (a threshold), not what was measured ("the 2-point rule").
_RULE_AFTER = re.compile(r"[\s\u00a0]*(?:rule|threshold|tolerance|cut-?off|criterion|bar|limit|window|band"
                         r"|scale)\b", re.I)
#: An integer read with the next or the one before in a tally ("20/20 runs sealed", "3/5 seeds done").
_RATIO = re.compile(r"^(?:/\d+.|.\d+/)$")
#: After a count: seeds to add ("5 more seeds per arm", "3 additional runs"), not the n run nor the
#: seeds-needed estimate (an increment, whatever it adds up to).
#: Around a count of runs: the tally of every run of the project ("all 15 runs", "41 runs in total").
_TOTAL_RUNS_BEFORE = re.compile(r"\b(?:all|total\s+of|altogether)\s+(?:the\s+)?(?:\\?num\s*\{?\s*)?$", re.I)
_TOTAL_RUNS_AFTER = re.compile(r"[\s\u00a0}]*(?:runs?|trainings?|jobs?)\s+"
                               r"(?:in\s+total|in\s+all|altogether|overall)\b", re.I)
_MORE_SEEDS_AFTER = re.compile(r"[\s\u00a0]+(?:more|additional|extra|further)\s+(?:random\s+)?"
                               r"(?:seeds?|runs?|repetitions?|replicates?)\b", re.I)
#: Before a seed count: runs planned, not made ("re-run with 12", "we will use 20", "plan to train 8").
_PLANNED_BEFORE = re.compile(r"\b(?:re-?run|re-?train|repeat|(?:will|shall|should|plan(?:s|ned)? to|intend to"
                             r"|going to|need to|needs to)\s+(?:re-?)?(?:run|use|train|add|try)"
                             r"|to be (?:re-?)?run"
                             r"|schedul\w*|queue\w*)\b(?:\s+(?:it|them|this|everything|all|the \w+"
                             # "Rerun CNN vs MLP with 12 seeds each": what is rerun, named
                             r"|[\w-]+\s+(?:vs\.?|versus|and|against)\s+[\w-]+))?"
                             r"(?:\s+(?:with|on|over|using|for|at))?\s*(?:about|around|some|~)?\s*$", re.I)
#: Before a number: a hyper-parameter or a setting named in words.
_SETTING_BEFORE = re.compile(
    r"(?<![\w-])(?:dropout|weight[ -]decay|momentum|learning[ -]rates?|lr|warm-?up|label smoothing"
    r"|batch[ -]size"
    r"|epochs?|seed|split|alpha|α|level|threshold|margin of|tolerance|temperature|beta|gamma|lambda"
    r"|decay|patience|width|depth|hidden(?: units| size)?|channels|kernel(?: size)?|stride|budget of"
    r"|top-?k|k\s*=|p\s*[<>=≤]|p-value|p value|significance|confidence(?: level)?|power"
    r"|version|release|held out|holds? out|hold-out|test size|test share"
    r"|trained on|train on|training on|ratio|defaults?|default value|by default)"
    r"(?: rate)?(?:\s+(?:of|=|:|to|at|is|was|set to|fixed at|equal to|below|under|above|from|between"
    r"|(?:stays?|stayed|remains?|remained|kept|left|held) at))?"
    r"\s*[\s(~≈]*"
    r"(?::[*_]+\s*)?$", re.I)  # "**Report version:** 1.2"
#: A split named as where a result was measured, right before its number: "on the held-out split
#: is", "on the validation split is" (attribution then reads it as that split's: no claim's, or a
#: test claim's own number misnamed); "the validation split is 20%" stays a share.
_ON_THE_SPLIT = re.compile(r"\b(?:on|in|over|across)\s+(?:the\s+|our\s+)?"
                           r"(?:test|held-out|hold-out|validation|val|dev)\s+"
                           r"split\s+(?:is|was)\s*$", re.I)
#: Words after an integer that make it a count of things, not a result (1,797 images, 15 epochs).
_COUNT_NOUNS = re.compile(
    r"[\s\u00a0-]*(?:[A-Za-z-]+[\s-]){0,2}?(?:epochs?|steps?|iterations?|images?|samples?|examples?|digits?\b"
    r"|classes|class|layers?|units?|neurons?|channels?|params?|parameters?|hours?|minutes?|seconds?|s\b|ms\b"
    r"|gpus?|cpus?|cores?|nodes?|workers?|batches|batch|configurations?|configs?|models?|variants?"
    r"|features?|pixels?|dimensions?|dims?|tokens?|words?|pages?|rows?|columns?|files?|folds?|splits?"
    r"|groups?|arms?|trials?|checkpoints?|times|x\b|fold|way|shot|bits?|bytes?|kb|mb|gb|tb|kib|mib|gib"
    r"|people|participants|authors?|annotators?|versions?|days?|weeks?|months?|years?|points? of data)",
    re.I)
#: A metric's units after a number ("by 13 RMSE units"): a measure, not a count of units.
_METRIC_UNITS = re.compile(r"[\s\u00a0]+(?:(?:rmse|mse|mae|loss|error|score|accuracy)\s+units?\b"
                           # "by 3 units of RMSE", "about three units of test error": a measure too
                           r"|units?\s+of\s+(?:the\s+)?(?:(?:test|validation|val|mean)\s+)?"
                           r"(?:rmse|mse|mae|loss|error|score|accuracy)\b)", re.I)
#: "lowers test RMSE by 3 units": after "by", bare units are the metric's, a difference's size.
_BARE_UNITS = re.compile(r"[\s\u00a0]+units?\b(?![\s\u00a0]+(?:wide|of\s+(?:width|hidden)))", re.I)
#: "its test RMSE is roughly 58 units": an error metric named before the number, in its clause.
_METRIC_BEFORE = re.compile(r"\b(?:rmse|mse|mae|error|loss)\b[^,;:(]{0,30}$", re.I)
#: "3.1 units more accurate than linear regression": units of a difference, its comparative after.
_UNITS_COMPARED = re.compile(r"[\s\u00a0]+units?[\s\u00a0]+(?:more|less|better|worse|lower|higher|smaller"
                             r"|larger)\b", re.I)
_BY_BEFORE = re.compile(r"\bby\s+(?:about|around|roughly|nearly|almost|some|~|≈)?\s*$", re.I)
#: Any plural noun right after an integer: a count of things (442 patients, 12 annotators), unless
#: it is a unit of the result (points, percent).
_PLURAL_AFTER = re.compile(r"[ \u00a0]+(?:[a-z]{3,}[ \u00a0]+)?(?!(?:points|percent|pts|times)\b)"
                           r"[a-z]{3,}s\b")
_SEEDS_AFTER = re.compile(r"[\s\u00a0-]*(?:(?!(?:because|since|as|its|their|whose|which|that|and|but|so|of"
                          r"|the)\s)[A-Za-z-]+\s){0,2}?(?:seeds?|runs?|random (?:seeds|restarts)"
                          r"|repetitions?"
                          r"|replicates?|repeats?|independent runs?|trainings?|initiali[sz]ations?)\b", re.I)
_NEEDED_CUE = re.compile(r"\b(?:need(?:s|ed)?|required?|requires|would take|estimat\w*|more seeds"
                         r"|per (?:group|arm|side)|each side"
                         r"|detect\w*|resolve[sd]?|settle[sd]?|to show|power)\b", re.I)
#: A margin declared for a test, in any unit: "an equivalence margin of 0.5 points", "a ROPE of ±1".
_MARGIN_BEFORE = re.compile(r"\b(?:equivalence|non-inferiority|practical[- ]equivalence|smallest effect)"
                            r"(?:\s+(?:margin|bound|threshold))?\s*(?:of|=|:|at|is)?\s*[±]?\s*$"
                            r"|\bROPE\s*(?:of|=|:)?\s*[±]?\s*$", re.I)
#: Before a count of seeds: the seeds on which one side wins, ties or loses, no n of a claim.
_TALLY_BEFORE = re.compile(r"\b(?:ahead|behind|better|worse|wins?|won|loses?|lost|tied|ties|leads?|trails?)"
                           r"\s+(?:on|in)\s+(?:only\s+|just\s+)?$", re.I)
#: The seeds that were run called too few: "with 5 per group the test has little power".
_LOW_POWER = re.compile(r"\b(?:little|low|limited|no|insufficient|not much)\s+(?:statistical\s+)?power\b",
                        re.I)
#: Right before a count of seeds: it was run ("pairs four seeds per group", "uses 5 per arm").
_RAN_VERB_BEFORE = re.compile(r"\b(?:pairs|paired|uses|used|ran|runs|trains|trained|has|had|with|over|on)"
                              r"\s+$", re.I)
_PER_GROUP_CUE = re.compile(r"\bper (?:group|arm|side)\b|\beach side\b", re.I)
#: "five seeds cannot resolve it", "3 runs are too few to settle it": the count that was run.
_TOO_FEW_AFTER = re.compile(r"[\s\u00a0-]*(?:[A-Za-z-]+\s){0,2}?(?:seeds?|runs?)\s+(?:per\s+\w+\s+)?"
                            r"(?:cannot|can't|can not|could not|couldn't|do not|don't|did not|didn't"
                            r"|(?:are|were|is|was) (?:not enough|too few|insufficient))\b", re.I)
#: A need cue denied ("is not resolved", "cannot be detected"): it says the seeds run were too
#: few, not how many are needed.
_NOT_RESOLVED = re.compile(r"\b(?:not|never|cannot|can't|couldn't|un)\s*(?:be\s+|been\s+|yet\s+)?"
                           r"(?:resolve[sd]?|settle[sd]?|detect\w*|to show)\b", re.I)
#: "About 15 per group": a count of seeds per group, without the word seeds.
#: A slash that means "per": "18/group", "5/model".
_PER_WHAT = re.compile(r"/\s*(?:group|arm|side|model|variant)s?\b", re.I)
_PER_GROUP_AFTER = re.compile(r"[\s\u00a0]+per\s+(?:group|arm|side)\b|\s*/\s*(?:group|arm|side)\b", re.I)
#: "about 10 seeds per model": an estimate; "5 seeds per model" without an "about" is the count
#: that was run ("per group" is the seeds-needed phrasing of a comparison either way).
_PER_MODEL = re.compile(r"\bper (?:model|variant)\b", re.I)
_PROB_BEFORE = re.compile(r"(?:(?<![A-Za-z])(?:P|Pr|Prob)\s*\([^)]{0,80}\)"
                          r"(?:\s+(?:for|of|in|from|per)\s+[^.;:=]{0,40}?)?"
                          r"|probability(?: of [^.;]{0,90}?| that [^.;]{0,90}?)?"
                          r"|prob\.?|(?:chance|likelihood|odds) that [^.;]{0,90}?)"
                          r"\s*(?:(?:is|was)\s+P\s*=|=|≈|~|:|is|are|of|at|was|about|around|only|just"
                          # "P(CNN better) was read out as 0.94", "is estimated at 0.84"
                          r"|(?:is|was|were)\s+(?:read(?:\s+out)?|reported|quoted|given|stated|put|estimated"
                          r"|computed|recorded|noted)\s+(?:as|at)"
                          # "P(CNN better than MLP) comes out at 0.64", "stands at 0.84"
                          r"|(?:comes?|came)\s+out\s+(?:at|as)|(?:stands?|stood|sits?|sat)\s+at"
                          r"|works?\s+out\s+(?:at|to))?\s*"
                          # "P(CNN better) is only 0.62", "is still about 0.8"
                          r"(?:(?:about|around|roughly|only|just|merely|still)\s*){0,2}"
                          r"(?:\\?(?:num|SI|qty)\b\s*\{?\s*)?$",  # "is \num{0.62}"
                          re.I)
#: After a percentage: the chance level ("the 10% of guessing", "10% for random guessing").
_CHANCE_AFTER = re.compile(r"[\s\u00a0]*(?:(?:of|for|from|by|under)\s+(?:random\s+|pure\s+|blind\s+)?"
                           r"(?:guessing|chance)\b"
                           # "close to the 10% a uniform guess would get": what guessing scores
                           r"|(?:that\s+|which\s+)?(?:a|an|any)\s+"
                           r"(?:uniform(?:ly random)?|random|blind|constant)\s+"
                           r"(?:guess(?:er)?|classifier|predictor|labell?ing)"
                           r"\s+(?:would|will|could|can|gets|scores)\b"
                           r"|(?:that\s+|which\s+)?(?:random\s+|blind\s+|uniform\s+)?guessing\s+"
                           r"(?:would\s+|will\s+)?(?:gives?|get|gets|yields?|scores?|reach(?:es)?)\b"
                           # "the 10% one gets by guessing"
                           r"|\s+(?:one|you|a\s+model)\s+(?:gets?|would\s+get|scores?)\s+(?:by|from)\s+"
                           r"(?:random\s+|blind\s+)?guessing\b"
                           # "within 2 points of 10%, the chance level", "the 10% chance line"
                           r"|,?\s*(?:the\s+|i\.e\.\s+(?:the\s+)?|which\s+is\s+(?:the\s+)?)?chance"
                           r"(?:[\s-]+(?:level|rate|accuracy|line|baseline))\b)", re.I)
#: Before a number: the range or scale of the data's values ("the scale of the outcome (25-346)").
_DATA_RANGE_BEFORE = re.compile(r"\b(?:scale|range|span|spread|values?)\s+of\s+(?:the\s+|its\s+)?(?:outcomes?"
                                r"|targets?|response|labels?|inputs?|features?|variable|data|values)\b"
                                r"(?:\s+(?:is|was|are|were|runs?|goes))?\W{0,4}(?:from\s+)?$", re.I)
#: After a number: the axis or scale it bounds ("on its own 0–30% axis", "a 0-100% y-axis").
_AXIS_AFTER = re.compile(r"[\s\u00a0]*(?:[xy]-?\s*)?(?:axis|axes|scale bar|colou?r ?bar)\b", re.I)
#: Before a number: what one item of the test set is worth ("360 test images, so one image is 0.28
#: points"): a unit of the metric, no result.
_ONE_ITEM_IS = re.compile(r"\b(?:one|a single|each)\s+(?:test\s+)?(?:image|digit|example|sample|item|point"
                          r"|question|patient|prediction)\s+(?:is|=|equals|is worth|counts for|corresponds to"
                          r"|moves (?:it|the \w+) by)\s*(?:about\s+|~\s*)?$", re.I)
#: Before a number in its sentence: an expectation held before the results ("we expected the CNN
#: to lead by about 1%").
_EXPECTED_BEFORE = re.compile(r"\b(?:we|I|they|the authors)\s+(?:had\s+)?(?:expected|predicted"
                              r"|hypothesi[sz]ed|anticipated|guessed|hoped)\b"
                              r"(?:(?!\b(?:but|while|whereas|however|yet|instead|though)\b)[^.;!?])*$", re.I)
#: Before a number: the level something ought to sit near, a norm and no result ("the control
#: should sit near 10%", "is supposed to be around 10%"); a plain "should be 98.7%" stays a statement.
_NORM_BEFORE = re.compile(r"\b(?:should|ought to|is supposed to|are supposed to|would)\s+(?:\w+\s+)?"
                          r"(?:sit|be|stay|land|hover|lie|come in|end up)\s+(?:near|around|about|close to"
                          r"|roughly|approximately|~|≈)\s*$", re.I)
#: After "from N": a change to the value reported elsewhere ("from 61.8 (raw target) to the final value").
_TO_THE_FINAL = re.compile(r"[\s\u00a0]*(?:\([^()]{0,40}\)[\s\u00a0]*)?(?:down\s+|up\s+)?to\s+"
                           r"(?:the|its|our|their)\s+(?:final|current|reported|present|headline|new|published)\b",
                           re.I)
#: "1 of 2": a whole number and the count it is a place in (not "21 of the 25 seed pairs").
_OF_COUNT_AFTER = re.compile(r"[ \u00a0]+of[ \u00a0]+\d+\b(?![ \u00a0]*(?:%|[.,]\d"
                             r"|(?:\w+[ \u00a0]+)?(?:seed|run)?[- ]?(?:pairs|pairings|seeds|runs"
                             r"|configurations|configs|trials)\b))", re.I)
_OF_COUNT_BEFORE = re.compile(r"(?<![\d.,])\d+[ \u00a0]+of[ \u00a0]+$", re.I)
#: A single run named before a number in its clause: its value is that run's, no claim's mean.
_ONE_RUN_BEFORE = re.compile(r"\b(?:(?:a|one|each|every|any|single|that)\s+(?:run|seed)(?:'s|’s)"
                             r"|per-(?:seed|run)\b|(?<![\w-])seed[\s~\u00a0]*(?:#|no\.\s*)?\d+\b(?![\s\u00a0]*(?:seeds|runs))"
                             r"|\b(?:its|the|their)\s+(?:luckiest|unluckiest|best|worst|lowest|highest|single)\s+"
                             r"(?:[\w-]+\s+)?(?:seed|run)\b"
                             # "the y-axis runs from 97.5% to 99.5%": a plot's range, no result
                             r"|\b[xy][\s-]?axis\b)", re.I)


_NUMBER = re.compile(r"(?<![\w.])[+−-]?\d+(?:\.\d+)?(?![.\d]*\.\d)|\b(?:"
                     + "|".join(sorted((w for w in _WORD_NUMBERS if " " not in w), key=len, reverse=True))
                     + r")\b", re.I)  # a number in digits or in words, as the tokenizer reads them


#: Words that mark what their clause says as an earlier version's, no statement of the evidence now:
#: "The 99.4% has been removed", "was given as 61.8 before the target-scaling fix", "v1 had +83.0".
_SUPERSEDED = re.compile(
    r"\b(?:has|have|had)\s+been\s+(?:removed|deleted|dropped|replaced|retracted|withdrawn|corrected"
    r"|superseded)\b"
    r"|\b(?:was|were)\s+(?:removed|deleted|dropped|replaced|retracted|withdrawn|superseded)\b"
    r"|\b(?:is|are)\s+(?:now\s+)?superseded\b|\bleft\s+over\s+from\b"
    r"|\bbefore\s+the\s+(?:[\w-]+\s+){0,2}(?:fix|bug\s?fix|correction|rerun|re-run)\b|\bpre-fix\b"
    r"|\b(?:in|from)\s+(?:the\s+)?(?:v\d+|version\s+\d+|first\s+version|earlier\s+draft|old\s+draft"
    r"|previous\s+(?:version|draft|release))\b"
    r"|\bv\d+\s+(?:had|said|says|reported|claimed|read|gave|stated)\b"
    # "last week's build had 58.9", "the previous run gave 61.8": an earlier build's number
    r"|\b(?:last\s+(?:week|month|night|year)(?:'s|’s)|yesterday(?:'s|’s)|the\s+(?:previous|old|earlier|first)"
    r"|an?\s+(?:earlier|older|previous))\s+(?:[\w-]+\s+)?(?:build|run|version|release|delivery|rerun)s?\s+"
    r"(?:had|gave|showed|reported|read|was|were|got)\b"
    # "The earlier figure of 58.3 (report v0.1) came from an unscaled run": named as an old number
    r"|\b(?:the|an?)\s+(?:earlier|old|older|previous|original|initial|first|outdated)\s+(?:figure|number|value"
    r"|result|estimate)s?\s+(?:of|was|were)\b"
    # "On MNIST, committees of convolutional nets reach 0.23% error": another benchmark's result
    r"|\bon\s+(?:MNIST|CIFAR-?10|CIFAR-?100|ImageNet|SVHN|Fashion-MNIST|KMNIST|EMNIST|USPS)\b,?\s+"
    r"(?:[^.;\n]{0,60}?\s)?(?:reach(?:es|ed)?|achieve[sd]?|get|gets|got|obtain(?:s|ed)?|report(?:s|ed)?)\b"
    # "ignore the 88.4 I posted yesterday": withdrawn by its writer
    r"|\bignore\s+(?:the|my|that|this|those)\b"
    # "LeNet-5 reached a 0.95% error rate on MNIST": another benchmark's result, no claim's
    r"|\b(?:reached|achieved|obtained|got|scored|reports|reported(?!\s+as))\b(?:[^.;\n]|\.(?=\d)){0,60}?\bon\s+"
    r"(?:the\s+)?"
    r"(?:MNIST|CIFAR-?10|CIFAR-?100|ImageNet|SVHN|Fashion-MNIST|KMNIST|EMNIST|USPS|COCO|GLUE|SuperGLUE|SQuAD)\b",
    re.I)
#: "... 61.8 at this release; 0.3.0 replaces it": a cue that points back across a semicolon.
_SUPERSEDED_BACK = re.compile(r"\b(?:replaces|replaced|supersedes|superseded|corrects|corrected)\s+"
                              r"(?:it|this|them)\b", re.I)
#: A sentence that says the number before it is no longer true ("That number is superseded").
_SUPERSEDED_NEXT = re.compile(r"(?:That|This|The|Those|These)\s+(?:number|figure|value|result|claim|numbers"
                              r"|figures|values)\s+(?:is|was|are|were|has\s+been|have\s+been)\s+(?:now\s+)?"
                              r"(?:superseded|wrong|outdated|stale|incorrect|retracted|withdrawn|removed|obsolete)\b")
#: A quotation introduced as an earlier version's or a reviewer's words: '**¶1, v1:** "..."',
#: '> **R1.1** "The abstract says ..."', 'The v2 sentence "..." has been deleted'.
#: After a quotation: its correction follows ('"... a test RMSE of 57.2" should read 55.9').
_CORRECTED_AFTER = re.compile(r"\W{0,3}\s*(?:should|must)\s+(?:read|be|say)\b"
                              r"|\W{0,3}\s*(?:now\s+)?(?:reads|is\s+corrected\s+to)\b", re.I)
_QUOTED = re.compile(r"[\"“]((?:[^\"“”\n]|\n(?![ \t]*\n)){4,300})[\"”]")  # a quotation may wrap a line
_QUOTE_LABEL = re.compile(r"(?:\bv\d+\b|\bversion\s+\d+\b|\b(?:old|earlier|previous|original)\s+"
                          r"(?:text|sentence|wording|draft|version)\b|\bsentence\b|\bwording\b"
                          # "The pipeline refused to print "the CNN beats the MLP"": words not written
                          r"|\b(?:refused|refuses|declined|declines)\s+to\s+\w+"
                          r"|\b(?:no\s+longer|never|does\s+not|doesn't|did\s+not|didn't|will\s+not|won't)\s+"
                          r"(?:say|says|print|prints|write|writes|claim|claims)\b)[^\n\"“]{0,30}$", re.I)
_REVIEWER_LINE = re.compile(r"[ \t>]*(?:[*_]{1,2})?\s*(?:R\d+(?:\.\d+)?|Reviewer\s*#?\s*\w*|Meta-?review\w*"
                            r"|AC)\b", re.I)


def _mask_superseded(t: str) -> str:
    """What a document quotes or marks as an earlier version's blanked: a changelog's old value,
    a rebuttal's quotation of the reviewer or of a deleted sentence, a v1 column's wording."""
    from evidence.deliver.prose import spaces

    if not (_SUPERSEDED.search(t) or _SUPERSEDED_BACK.search(t) or _SUPERSEDED_NEXT.search(t)
            or _QUOTED.search(t)):
        return t
    out = list(t)

    def blank_numbers(lo: int, hi: int) -> None:
        for number in _NUMBER.finditer(t, lo, hi):
            out[number.start() : number.end()] = spaces(number.group(0))

    latest = max((int(v) for v in re.findall(r"\bv(\d+)\b", t)), default=0)
    for q in _QUOTED.finditer(t):
        line_start = t.rfind("\n", 0, q.start()) + 1
        before = t[line_start : q.start()]
        after = t[q.end() : q.end() + 60]
        label = _QUOTE_LABEL.search(before)
        if label is not None and (version := re.match(r"v(\d+)\b", label.group(0))) is not None \
                and int(version.group(1)) >= latest:
            label = None  # '**¶1, v2:** "..."' beside v1's: the current version's words, checked
        if label is not None or _REVIEWER_LINE.match(t, line_start) \
                or _SUPERSEDED.match(re.sub(r"^\W*(?:in\s+the\s+\w+\s+)?", "", after)):
            out[q.start(1) : q.end(1)] = spaces(q.group(1))  # its numbers and its wording
        elif _CORRECTED_AFTER.match(t, q.end()):
            blank_numbers(q.start(1), q.end(1))  # '"... of 57.2" should read 55.9': its words say what
            # the correction is of
    for cue in _SUPERSEDED.finditer(t):
        lo, hi = _clause_bounds(t, cue.start(), cue.end())
        blank_numbers(lo, hi)
    for cue in _SUPERSEDED_BACK.finditer(t):
        lo, hi = _clause_bounds(t, cue.start(), cue.end())
        if lo > 0 and t[lo - 1] == ";":
            lo, _ = _clause_bounds(t, lo - 1, lo - 1)
        blank_numbers(lo, hi)
    for cue in _SUPERSEDED_NEXT.finditer(t):
        before = t[: cue.start()].rstrip()
        start = max((m.end() for m in re.finditer(r"[.!?]\s|\n[ \t]*\n", before[:-1])), default=0)
        blank_numbers(start, cue.start())
    return "".join(out)


def _clause_bounds(t: str, start: int, end: int) -> tuple[int, int]:
    """The clause around ``t[start:end]``: between the nearest sentence or clause breaks."""
    window = max(0, start - 300)
    lo = max((m.end() for m in _CLAUSE_BREAK_BEFORE.finditer(t, window, start)), default=window)
    m = _CLAUSE_BREAK_AFTER.search(t, end, end + 300)
    return lo, m.start() if m else min(len(t), end + 300)


_CLAUSE_BREAK_BEFORE = re.compile(r"[.!?](?=\s)|[;,(]|\n[ \t]*\n|^[ \t]*[-*]\s", re.M)
_CLAUSE_BREAK_AFTER = re.compile(r"[.!?](?=\s)|[;,:)]|\n[ \t]*\n")


def _mask_one_run(t: str) -> str:
    """Numbers after a single run named in their clause blanked: "Seed 3 of the control scored
    4.4%, the lowest of all runs; averaged over five seeds it scores 11.2%" keeps only the mean."""
    from evidence.deliver.prose import spaces

    if not _ONE_RUN_BEFORE.search(t):
        return t
    out = list(t)
    for cue in _ONE_RUN_BEFORE.finditer(t):
        _, stop = _clause_bounds(t, cue.start(), cue.end())
        for number in _NUMBER.finditer(t, cue.end(), min(stop, cue.end() + 160)):
            out[number.start() : number.end()] = spaces(number.group(0))
    return "".join(out)


#: After a number: named as the expectation it is compared with ("11.2% vs. 10% expected").
#: After a number: the text refutes it as a slip ("bo's 58.9 came from a stale build folder",
#: "the 61.2 in the draft was a typo"): a wrong number quoted to correct it, no statement of it.
_REFUTED_AFTER = re.compile(r"\}?[\s\u00a0]*(?:%|points?|pp)?"
                            r"(?:[\s\u00a0]+(?:in|on|for)(?:[\s\u00a0]+[\w'`./-]+){1,3}"
                            r"|,[\s\u00a0]*which)?"
                            r"(?:[\s\u00a0]+(?:(?:came|comes|was|is)[\s\u00a0]+from"
                            r"[\s\u00a0]+(?:an?|the)[\s\u00a0]+(?:stale|old|outdated|broken|buggy|wrong|pre-release"
                            r"|preliminary)\b"
                            r"|(?:was|is)[\s\u00a0]+(?:just[\s\u00a0]+)?(?:an?[\s\u00a0]+)?"
                            r"(?:typo|mistake|misprint|wrong|stale|outdated|copy-paste error"
                            r"|(?:pre-release|preliminary|stale|old|outdated)[\s\u00a0]+(?:build|run|version|number"
                            r"|value|result))\b"
                            r"|(?:was|is)[\s\u00a0]+from[\s\u00a0]+(?:an?|the)\b[^.;\n]{0,60}?"
                            r"\b(?:and|which)[\s\u00a0]+(?:is|has been)[\s\u00a0]+"
                            r"(?:gone|removed|deleted|retracted)\b)"
                            # "\num{-1.64}, a decimal slip that this version corrects"
                            r"|,[\s\u00a0]*(?:an?[\s\u00a0]+)?(?:decimal[\s\u00a0]+|transcription[\s\u00a0]+)?"
                            r"(?:slip|typo|misprint|mistake)[\s\u00a0]+(?:that|which)\b)", re.I)
#: Later in its sentence: "the 61.83 is with the leaky split (...), so it is not a result".
_NOT_A_RESULT_LATER = re.compile(r"(?:[^.\n]|\n(?![ \t]*\n)){0,160}?\b(?:it|this|that|which)\s+(?:is|was)\s+"
                                 r"(?:not|n't|never)\s+(?:a|an|our)\s+(?:real\s+|valid\s+|actual\s+)?result\b",
                                 re.I)


#: A number taken back in the lines right after it: "no, 55.9 is the MLP row".
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_NO_THEN_NUMBER = re.compile(r"\bno\s*[,:;.!]\s*(?:the\s+)?([-+−]?\d+\.\d+)(?!\d)", re.I)


def _denied_next(t: str, end: int, digits: str) -> bool:
    """The same number taken back right after: "linear regression is at 55.9 test RMSE now."
    "no, 55.9 is the MLP row" (a decimal only: an integer recurs for other reasons)."""
    paragraph = _BLANK_LINE.search(t, end, end + 200)
    return any(m.group(1) == digits for m in _NO_THEN_NUMBER.finditer(
        t, end, paragraph.start() if paragraph else min(len(t), end + 200)))


_EXPECTED_AFTER = re.compile(r"[\s\u00a0]+(?:is\s+|was\s+)?expected\s*(?=[).,;:|\n]|$)", re.I)
#: A probability named before a bare "P = 0.87": the P is that probability, not a p-value.
PROBABILITY_NAMED = re.compile(r"probabilit|(?<![A-Za-z])P\s*\(", re.I)
_PROB_AFTER = re.compile(r"[\s\u00a0]*(?:%[ \u00a0]*)?(?:probability|chance that|likelihood|posterior"
                         # "a 14% chance linear is better": "that" left out before its subject
                         r"|chance\s+(?!(?:level|accuracy|rate|performance|score|baseline)\b)"
                         r"(?:[\w'-]+\s+){1,3}?(?:is|are|was|were)\s+(?:actually\s+|really\s+)?"
                         r"(?:better|worse|ahead|behind)\b"
                         r"|(?:of|in)\s+(?:the\s+|all\s+)?(?:seed\s+|run\s+)?(?:pairs|pairings"
                         r"|pairwise comparisons|head-to-head(?: comparisons)?)|of (?:the )?pairings"
                         r"|(?:seed|run)\s+pair(?:s|ings)|of the time)", re.I)
_APPROX_BEFORE = re.compile(r"(?:about|around|roughly|approximately|approx\.?|some|~|≈|nearly|almost"
                            r"|ca\.)\s*$",
                            re.I)
#: A share written as "one in N" and glossed as a percentage right after it: "(10%)".
_ONE_IN_GLOSSED = re.compile(r"\b(?:one|1)\s+(?:time\s+|out\s+)?(?:in|of)\s+(?:every\s+)?"
                             r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twenty|a\s+hundred)\s*[(,]\s*$"
                             r"|\b1\s*/\s*\d+\s*[(,=]\s*$", re.I)
_CHANCE_BEFORE = re.compile(r"\bchance(?: level| accuracy| rate| performance| score)?"
                            # "chance for 10 classes is 10%", not "the chance for the CNN to win is 0.84"
                            r"(?: (?:on|for|with|among|over) (?![^.;,]{0,30}\bto\b)[^.;,]{0,30})?"
                            r"\s*(?:is|of|=|:|,|equals|would be|corresponds to|level)?\s*[(~≈]?\s*"
                            r"(?:\\?\b(?:qty|SI|num)\s*\{?\s*)?$", re.I)  # "chance (\qty{10}{\percent})"
#: A result's label that says where it stands: "Shuffled-label control at chance: 11.2%".
_AT_CHANCE_LABEL = re.compile(r"\b(?:control|model|baseline)\s+(?:is\s+|scores?\s+|sits\s+)?at\s+chance"
                              r"\s*:\s*$", re.I)
_BOUND_BEFORE = re.compile(r"(?:(?:≥|>|>=|\\geq?|\bover|\babove|\bmore than|\bat least"
                           r"|\bexceed(?:s|ing)?|\bbetter than|\bhigher than)"
                           r"|(?P<below>≤|<|<=|\\leq?|\bbelow|\bunder|\bless than"
                           r"|\bat most|\bup to|\bnearly|\balmost|\blower than|\bwithin))\s*$", re.I)
_INTERVAL_OPEN = re.compile(r"[\[(]\s*$")
_CI_BEFORE = re.compile(r"(?:CI|interval|confidence interval|credible interval|range|ranges?|bounds?|between"
                        r"|from)\W{0,6}(?:of|is|was|spans?|:|=|from)?\s*[\[(]?\s*$", re.I)


#: "the seeds needed, 26 per group": seeds named just before a bare integer that counts them.
_SEEDS_NAMED_BEFORE = re.compile(r"\bseeds?\b(?:\s+(?:needed|required|per (?:group|model|side))"
                                 # "the seeds-needed estimate for width is 62"
                                 r"|[- ](?:needed|required)\s+estimates?"
                                 r"(?:\s+(?:for|of)\s+[^.;:\d]{0,40}?)?)?"
                                 r"\s*(?:,|:|=|at|is|are|of)?\s*(?:about|around|roughly|approx\.?|~|≈)?\s*$",
                                 re.I)
#: A seeds-needed estimate's list going on with the count elided: "about 10 seeds per group, and
#: the width comparison about 26" (LaTeX's "\num{26}" masked to " num 26").
_NEEDED_ELIDED = re.compile(r"[\s\u00a0]*(?:seeds?\s+)?(?:per\s+(?:group|model|side|arm)\s*)?,?"
                            r"\s+(?:and|while)\s+"
                            r"(?:for\s+)?(?:the\s+)?[A-Za-z][^,.;:\d]{0,40}?\s+(?:about|around|roughly|approx\.?"
                            r"|approximately|~|≈|at)?\s*(?:num\s*)?$", re.I)


#: The label's list going on after a ';': "Seeds needed for A: about 10 per group; for B about 62".
_SEEDS_NEEDED_LIST = re.compile(r"[\W_]*(?:the\s+)?(?:seeds?|runs?)\s+(?:needed|required)\b[^.;:\n]{0,80}:"
                                r"[^.:\n]*;\s*for\s+[^.;:\n\d]{1,60}?\s*[,:]?\s*"
                                r"(?:about|around|roughly|approximately|~|≈)?\s*$", re.I)
#: A line labelled as the seeds-needed estimate, up to its number after the colon.
_SEEDS_NEEDED_LABEL = re.compile(r"[\W_]*(?:the\s+)?(?:seeds?|runs?)\s+(?:per\s+(?:group|arm|side|model)\s+)?"
                                 r"(?:needed|required)\b"
                                 r"[^.;:\n]{0,80}:\s*"
                                 r"(?:about|around|roughly|approximately|~|≈)?\s*$", re.I)


def _end_in_words(upper: str, lower: str, direction: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(before the number, after it): an interval's end named in words ("its upper CI end,",
    "reaches up to"; "at the top")."""
    out = "tops" if direction == "up" else "bottoms"  # "the interval tops out at 99.2%"
    before = re.compile(rf"(?:\b(?:{upper})\s+(?:(?:CI|interval|confidence)\s+)?(?:end|bound|limit)"
                        rf"\s*(?:,|:|=|is|of|at)?|\b(?:reach(?:es|ed)?|goes|went|extends?|CI|interval)"
                        rf"\s+{direction}\s+to|\b{out}\s+out\s+at)\s*$", re.I)
    after = re.compile(rf"\s*(?:points?\s+|pp\s+|%\s+)?(?:at (?:the|its) (?:{lower})\b"
                       rf"|(?:is|was|marks)\s+(?:the|its)\s+(?:{upper})\s+(?:end|bound|limit)\b)", re.I)
    return before, after


#: After a number: an end of the interval, which one unsaid ("-22.6 is the end of the interval").
_AN_END_AFTER = re.compile(r"\s*(?:points?\s+|pp\s+|%\s+)?(?:is|was|marks)\s+(?:the|an|one)\s+"
                           r"(?:end|bound|limit)\s+of\s+(?:the|its)\s+(?:95\s*%\s+)?"
                           r"(?:CI|interval|confidence interval)\b", re.I)
#: Later in the number's sentence, with no number between: which end it is ('quotes 99.2% as "the
#: CNN's accuracy", that is the top of the interval').
_END_NAMED_LATER = re.compile(r"[^.;!?\d\n]{0,80}?\b(?:that|it|this|which)(?:\s+is|\s+was|'s|’s)\s+"
                              r"(?:just\s+|only\s+|actually\s+|really\s+)?(?:the|its)\s+"
                              r"(?:(?P<high>top|upper end|high end|upper bound|upper limit)"
                              r"|bottom|lower end|low end|lower bound|lower limit)\b"
                              r"(?=\s+of\s+(?:the|its)\s+(?:95\s*%\s+)?"
                              r"(?:CI|interval|confidence interval)\b)",
                              re.I)
#: (role, before, after) for an interval's end named in words.
_ENDS_IN_WORDS = (("ci_high", *_end_in_words("upper|top|high", "top|upper end|high end", "up")),
                  ("ci_low", *_end_in_words("lower|bottom|low", "bottom|lower end|low end", "down")))


#: Around a ± term: what spread it is, named (an SD, a standard error, a range of seeds, a tolerance).
_SPREAD_NAMED = re.compile(r"\b(?:SDs?|s\.d\.|std|stdev|standard (?:deviation|error)s?|SEM?s?|s\.e\.|sigma"
                           r"|spread|min|max|range|tolerance|jitter|seeds?)\b|σ", re.I)
#: After a ± term: a multiple of the SD, a band's width in SDs ("± 1 SD", "±2σ").
_MULTIPLE_OF_SD = re.compile(r"[\s\u00a0]*(?:SDs?|s\.d\.|SEs?|σ|sigma|standard (?:deviation|error)s?)(?!\w)",
                             re.I)
SD_WORDS = re.compile(r"SDs?|s\.d\.|std|stdev|standard deviations?|sigma|σ", re.I)
SE_WORDS = re.compile(r"SEM?s?|s\.e\.|standard errors?", re.I)
#: Before a number: named as an interval's half-width ("a CI half-width of about 0.2").
_HALF_WIDTH_BEFORE = re.compile(r"\b(?:half[- ]?width|margin of error)\s*(?:of|is|was|=|:|at)?\s*"
                                r"(?:about|around|roughly|approximately|~|≈)?\s*$", re.I)
#: Before a number: named as a spread over seeds ("the seed-to-seed SD is 0.15", "SD of its RMSE: 0.15").
SPREAD_BEFORE = re.compile(r"\b(?:SDs?|s\.d\.|std|stdev|standard (?:deviation|error)s?|SEM?|s\.e\.|variance)"
                            r"(?:\s+(?:of|across|over|between)\s+[^.;,\d]{0,40}?)?\s*(?:is|was|of|=|:|at)\s*"
                            r"(?:about|around|roughly|approximately|~|≈)?\s*$", re.I)
#: After a ± term: the interval it is the half-width of ("± 0.4 (95% CI)").
_CI_NAMED_AFTER = re.compile(r"[\s\u00a0]*(?:%|points?|pp)?[\s\u00a0]*[(,]?[\s\u00a0]*(?:95|90|99)?"
                             r"[\s\u00a0]*(?:%|\\%)?[\s\u00a0]*(?:CI|confidence interval)\b", re.I)


#: "its five seeds spread from 4.4% to 17.2%": a range of per-seed values, not an interval.
_SPREAD_FROM = re.compile(r"\b(?:spread|ranged?|rang(?:es|ing)|vary|varies|varied|varying)\s+(?:from\s+)?$",
                          re.I)
#: After "within N": a tolerance around something ("within 2 points of chance").
_TOLERANCE_AFTER = re.compile(r"[\s\u00a0]*(?:%|points?|pp|percentage points?)?[\s\u00a0]+of\b", re.I)


def tokenize(t: str) -> list[Token]:
    """Every number in masked text with its unit, role and whether it is a decoy."""
    tokens: list[Token] = []
    skip = -1  # the end of text read with the number before it ("of every 100", a broken "98.\n4%")
    for m in _NUM_RE.finditer(t):
        s, e = m.span()
        if s < skip:
            continue
        body, frac = m.group(0), m.group(1)
        if not frac and (broken := _BROKEN_DECIMAL.match(t, e)):
            # "98.\n4%": a number a line break split after its decimal point, read whole
            body, frac = f"{body}.{broken.group(1)}", f".{broken.group(1)}"
            e = skip = broken.end()
        if not body.strip("+±"):
            continue
        sign = body[0] if body[0] in "+±" else ""
        if sign:
            body = body[1:]
        before, before2 = t[s - 1 : s], t[max(s - 2, 0) : s - 1]
        decoy = frac.count(".") >= 2  # 1.2.3 is a version, not a quantity
        unit, end, value, start = "", e, 0.0, s
        paired = 0
        if not frac and not sign and (pair := _PAIR_COUNT.match(t, e)) and int(pair.group(1)) > 0:
            unit, end = "%", pair.end()  # "21 of the 25 seed pairs": 84% of them, P(better)
            skip, paired = end, int(pair.group(1))
        elif pm := _PERCENT_RE.match(t, e):
            unit, end = "%", pm.end()
        elif hundred := _PER_HUNDRED.match(t, e):
            unit, end = "%", hundred.end()  # "98.9 of every 100 digits": a percentage
            skip = end
        elif pts := _POINTS_RE.match(t, e):
            unit, end = "pts", pts.end()
        elif _BRACKET_PERCENT.match(t, e):
            unit = "%"  # "[4.8, 17.8] %": a unit after the closing bracket is both ends'
        elif glued := _GLUED_RE.match(t, e):
            unit = glued.group(0)
            decoy |= re.match(r"\w", t[glued.end() : glued.end() + 1]) is not None
            end = glued.end()
        nxt = t[e : e + 2]
        decoy |= before in ("#", "@", "/", "$", "€", "£") or nxt[:1] == "_" or (  # #12, 3/4, paths, money
            nxt[:1] == "/" and not _PER_WHAT.match(t, e))  # (not "18/group": per group)
        decoy |= (nxt[:1] == ":" and nxt[1:].isdigit()) or (before == ":" and before2.isdigit())
        decoy |= before in ("-", "–") and before2.isalpha()  # CIFAR-10, top-1, GPT-4
        decoy |= unit != "pts" and nxt[:1] in ("-", "‑") and t[e + 1 : e + 2].isalpha()  # 5-fold, 3-layer
        if not decoy:
            value = float(("0" + body if body.startswith(".") else body).replace(",", ""))
            if before in ("-", "−") and not (before2.isalnum() or before2 in ("%", ")", "-")):  # "98.1--99.4"
                value, start = -value, s - 1
                sign = "-"
            elif not sign and (spelled := _MINUS_WORD.search(t, max(0, s - 40), s)):
                # "from minus 22.6 to minus 10.2": the sign in words, read as "from -22.6 to -10.2"
                minus = spelled.group(1).lower() == "minus"
                value, sign, start = -value if minus else value, "-" if minus else "+", spelled.start(1)
            elif not sign and (wrapped := _SIGN_BEFORE_WRAPPER.search(t, max(0, s - 12), s)):
                # "$+\num{8.69}$" (masked "+ num 8.69"): the sign before a siunitx wrapper is the number's
                minus = wrapped.group(1) in ("-", "−")
                value, sign, start = -value if minus else value, "-" if minus else "+", wrapped.start(1)
        if paired and not decoy:
            value = 100.0 * value / paired
        integer = not frac and "e" not in body.lower()
        tok = Token(start, end, value, len(frac[1:]), unit, t[e : e + 40], integer, decoy,
                    signed=bool(sign))
        spread = t[max(0, s - 4) : s].strip().endswith(("±", "+/-", "\\pm", "pm"))
        if sign == "±" or before == "±" or before2 == "±" or spread:
            tok.statement = False  # the ± term: a spread, not a statement of the value
            if _CI_NAMED_AFTER.match(t, end) or re.search(r"\bCI\b|interval", t[max(0, s - 40) : s]):
                tok.statement, tok.role = True, "ci_half"  # "57.2 ± 0.4 (95% CI)": the interval's half-width
            elif _MULTIPLE_OF_SD.match(t, end) and integer and value <= 3:
                pass  # "(± 1 SD)", "±2σ": how many SDs a band is wide, no measured spread
            elif not (named := [m.group(0) for m in _SPREAD_NAMED.finditer(t, max(0, s - 60),
                                                                         min(len(t), end + 40))]):
                tok.statement, tok.role = True, "spread"  # "57.2 ± 0.4", unnamed: checked against the
                # claim of the value before it as its half-width, SD or standard error
            elif any(SD_WORDS.fullmatch(word) for word in named):
                tok.statement, tok.role = True, "sd"  # "57.2 ± 0.2 (mean ± SD)": the seeds' SD
            elif any(SE_WORDS.fullmatch(word) for word in named):
                tok.statement, tok.role = True, "se"
            elif any(word.lower() in ("spread", "seed", "seeds") for word in named):
                tok.statement, tok.role = True, "spread"  # "seed-to-seed spread | ± 1.6 points": a
                # spread named by no statistic ("± 0.9 over seeds"), checked as its half-width, SD or
                # standard error
        if sign != "±" and before != "±" and not spread:
            if _HALF_WIDTH_BEFORE.search(t, max(0, s - 60), s):
                tok.role = "ci_half"  # "the CI half-width of 0.2": the interval's half-width, checked
            elif SPREAD_BEFORE.search(t, max(0, s - 80), s):
                tok.statement = False  # "the seed-to-seed SD is 0.15": a spread over seeds, no result
        # a siunitx wrapper is no word: "(lr \num{1.0})" names its setting as "(lr 1.0)" does
        # and a line break is a space: "a learning\nrate of \num{1.0}" names its setting
        window = re.sub(r"\\?\b(?:num|SI|qty)\s*\{?\s*$", "", t[max(0, start - 60) : start])
        window = re.sub(r"\s+", " ", window)
        if unit == "%" and _LEVEL_AFTER.match(t, end):
            tok.decoy = True  # a 95% CI, 80% power: a level, not a result
        elif unit == "%" and value in _LEVELS and _LEVEL_BEFORE.search(t, max(0, start - 30), start) \
                and not re.match(r"\s*(?:[-–—,]|to\b)\s*\d", t[end : end + 8]):
            tok.decoy = True  # "the CI is 95%" (a level; "the CI is 95%-99%" would be its bounds)
        elif unit == "%" and _SETTING_AFTER.match(t, end) and (
                (integer and value % 5 == 0) or _SHARE_VERBS.search(window)):
            tok.decoy = True  # the same 20% test split, 70% of the data: a share, not a result
        probability = _PROB_BEFORE.search(t, max(0, s - 130), s) is not None \
            or _PROB_AFTER.match(t, e) is not None or (
            re.search(r"\bP\s*=\s*$", window) is not None and PROBABILITY_NAMED.search(t, max(0, s - 130), s)
            is not None) or paired > 0
        # a setting is never signed nor in points: "its width is +0.4 points" is a difference
        setting = (_SETTING_BEFORE.search(window) is not None and not (tok.signed or unit == "pts")) \
            or _MARGIN_BEFORE.search(window) is not None  # "an equivalence margin of 0.5 points"
        if setting and _ON_THE_SPLIT.search(window):
            setting = False  # "its RMSE on the held-out split is 56.2": where it was measured, no share
        # "Shuffled-label control at chance: 11.2%": a result's label, not the chance level
        at_chance = _AT_CHANCE_LABEL.search(window)
        if (setting or (_CHANCE_BEFORE.search(window) and not at_chance)) and not probability:
            tok.decoy = tok.setting = True  # dropout of 10%, learning rate 0.01, chance accuracy is 10%
        if unit == "%" and _CHANCE_AFTER.match(t, end):
            tok.decoy = True  # "around the 10% of guessing": the chance level
        if unit == "%" and _ONE_IN_GLOSSED.search(t, max(0, s - 40), s):
            tok.decoy = True  # "guessing is right one time in ten (10%)": a share glossed, 1/N
        if unit == "pts" and _RULE_AFTER.match(t, end) and t[e : e + 1] in ("-", "‑"):
            tok.decoy = True  # "fine by the 2-point rule": a threshold set beforehand, no result
        if unit == "pts" and _FROM_STATED_LEVEL.match(t, end):
            tok.decoy = True  # "1.2 points above 10%": a distance from a stated number, no claim's
        if _AXIS_AFTER.match(t, end) or _ONE_ITEM_IS.search(window):
            tok.decoy = tok.setting = True  # "its own 0–30% axis", "one image is 0.28 points": a scale
        if _DATA_RANGE_BEFORE.search(window):
            tok.decoy = tok.setting = True  # "the scale of the outcome (25–346)": the data, no result
        if _REFUTED_AFTER.match(t, end) or _NOT_A_RESULT_LATER.match(t, end):
            tok.decoy = True  # "bo's 58.9 came from a stale build folder": quoted to be corrected
        elif _denied_next(t, end, t[s:e]):
            tok.decoy = True  # "linear is at 55.9 now." "no, 55.9 is the MLP row": taken back
        if integer and not unit and (_OF_COUNT_AFTER.match(t, end)
                                     or _OF_COUNT_BEFORE.search(t, max(0, start - 12), start)):
            tok.decoy = True  # "Review round: 1 of 2", "page 3 of 10": a place in a count, no result
        if re.search(r"\bfrom\s*$", window, re.I) and _TO_THE_FINAL.match(t, end):
            tok.decoy = True  # "drop from 61.8 (raw target) to the final value": the level before a change
        if _NORM_BEFORE.search(window) or _EXPECTED_AFTER.match(t, end):
            tok.decoy = True  # "should sit near 10%", "vs. 10% expected": what it ought to be, no result
        if _EXPECTED_BEFORE.search(t, max(0, start - 80), start):
            tok.decoy = True  # "we expected the CNN to lead by about 1%": a prior, not a result
        if re.search(r"\bwithin\s*$", window, re.I) and _TOLERANCE_AFTER.match(t, e):
            tok.decoy = True  # "within 2 points of the chance level": a tolerance, not a result
        if _APPROX_BEFORE.search(window):
            tok.approximate = True
        if above := _BOUND_BEFORE.search(window):
            tok.bound = "<" if above.group("below") else ">"
        if not tok.statement and tok.unit and tokens and not tokens[-1].unit and re.fullmatch(
                r"[\s\u00a0]*(?:±|\+/-|pm)[\s\u00a0]*[+]?", t[tokens[-1].end : s]):
            tokens[-1].unit = tok.unit  # 98.7 ± 0.5%: the unit once, after the spread
        _role(t, tok, tokens)
        if probability and tok.role == "value" and not tok.unit.startswith("p"):
            tok.role = "prob_better"  # "P(MLP better) = 0.96, and for linear against the control P = 0.87"
        if tok.role in ("n", "seeds_needed"):
            tok.bound = ""  # "over 5 seeds" means across them
        tokens.append(tok)
    last: Token | None = None
    for tok in tokens:  # 98.4% (95% CI [98.1, 99.2]): the interval in the value's unit
        if tok.role == "value" and tok.unit in ("%", "pts") and not tok.decoy:
            last = tok
        elif tok.role in ("ci_low", "ci_high", "ci_end") and not tok.unit and last is not None and \
                tok.start - last.end < 80 and not re.search(r"[.;!?]\s", t[last.end : tok.start]):
            tok.unit = last.unit
    for w in _WORD_COUNT_RE.finditer(t):  # "over ten seeds", "twenty-six seeds per group": a count in words
        tens, unit = w.group("tens"), w.group("unit")
        value = _TENS[tens.lower()] + (_WORD_NUMBERS[unit.lower()] if unit else 0) if tens \
            else _WORD_NUMBERS[w.group(0).lower()]
        tok = Token(w.start(), w.end(), float(value), 0, "", t[w.end() : w.end() + 40], True, word=True)
        _role(t, tok, [])
        if tok.role in ("n", "seeds_needed", "configurations") and not tok.decoy:
            tokens.append(tok)
    spoken: list[tuple[int, int]] = []
    for w in _WORD_DECIMAL_RE.finditer(t):  # "ninety-eight point four percent", "by one point three"
        digits = re.findall(r"[a-z]+", w.group("digits"), re.I)
        said = _word_token(t, w, _word_integer(w) + float("0." + "".join(
            str(_DIGIT_WORDS[d.lower()]) for d in digits)), len(digits))
        if said is not None:
            tokens.append(said)
            spoken.append((w.start(), w.end()))
    for w in _WORD_LEVEL_RE.finditer(t):  # "its test RMSE is about fifty-eight": a level in words
        if not any(a <= w.start("tens") < b for a, b in spoken):
            said = _word_token(t, w, float(_word_integer(w)), 0)
            if said is not None:
                said.approximate = bool(w.group("about"))
                tokens.append(said)
                spoken.append((w.start("tens"), w.end()))
    for w in _WORD_PERCENT_RE.finditer(t):  # "around twenty percent", "nearly ninety-seven percent"
        if not any(a <= w.start("num") < b for a, b in spoken) \
                and not any(k.start <= w.start("num") < k.end for k in tokens):
            said = _word_token(t, w, float(_word_integer(w)), 0)
            if said is not None and said.unit == "%":
                said.approximate = bool(w.group("about"))
                tokens.append(said)
                spoken.append((w.start("num"), w.end()))
    for w in _WORD_DIFFERENCE_RE.finditer(t):  # "beats it by eighty-five points": a difference in words
        if any(a <= w.start("tens") < b for a, b in spoken):
            continue
        unit = w.group("unit")
        value = _TENS[w.group("tens").lower()] + (_WORD_NUMBERS[unit.lower()] if unit else 0)
        end = w.end()
        if pts := _POINTS_RE.match(t, end):
            end = pts.end()
        tokens.append(Token(w.start("tens"), end, float(value), 0, "pts" if pts else "", t[end : end + 40],
                            True, word=True, approximate=bool(w.group("about"))))
    for w in _WORD_SMALL_POINTS_RE.finditer(t):  # "leads the MLP by about two points": a difference in words
        if any(a <= w.start("small") < b for a, b in spoken) or any(k.start <= w.start("small") < k.end
                                                                     for k in tokens):
            continue
        value = _WORD_NUMBERS[w.group("small").lower()]
        tokens.append(Token(w.start("small"), w.end(), float(value), 0, "pts", t[w.end() : w.end() + 40],
                            True, word=True, approximate=bool(w.group("about"))))
    for w in _WORD_UNITS_DIFFERENCE_RE.finditer(t):  # "fourteen RMSE units worse": a difference in words
        if any(a <= w.start() < b for a, b in spoken) or any(k.start <= w.start() < k.end for k in tokens):
            continue
        value = _word_integer(w)
        tokens.append(Token(w.start(), w.end("num"), float(value), 0, "", t[w.end("num") : w.end("num") + 40],
                            True, word=True))
    for w in _WORD_HALF_RE.finditer(t):  # "half a point", "one and a half RMSE": a difference in words
        whole = _WORD_NUMBERS[w.group("whole").lower()] if w.group("whole") else 0
        end = w.end()
        unit = ""
        if pts := _POINTS_RE.match(t, end):
            unit, end = "pts", pts.end()
        elif pm := _PERCENT_RE.match(t, end):
            unit, end = "%", pm.end()
        elif not re.match(r"\s+(?:[A-Z]{2,}\b|units?\b)", t[end : end + 12]):
            continue  # "one and a half hours": no result's unit after it
        if re.search(r"\b(?:less|fewer|more|better|worse)\s+than\s*$|\b(?:under|below|above|over|within"
                     r"|up\s+to|at\s+(?:most|least)|about|roughly|around|nearly|almost|some)\s*[~≈]?\s*$",
                     t[max(0, w.start() - 20) : w.start()], re.I):
            continue  # "by less than half a point", "about half a point": a bound or a rough size
        tok = Token(w.start(), end, whole + 0.5, 1, unit, t[end : end + 40], False, word=True)
        _role(t, tok, [])
        if tok.statement and not tok.decoy and tok.role == "value":
            tokens.append(tok)
    for w in _BY_A_FRACTION_RE.finditer(t):  # "cuts the error by roughly a third": a relative change
        share = _FRACTIONS[re.sub(r"\s+", " ", w.group("frac").lower())]
        tok = Token(w.start("frac"), w.end(), round(100 * share, 1), 0, "%", t[w.end() : w.end() + 40], False,
                    word=True, approximate=True)
        tokens.append(tok)
    for w in _AND_A_HALF_RE.finditer(t):  # "by a point and a half", "about ninety-six and a half percent"
        if not (w.group("points") or w.group("percent")):
            continue
        tokens = [k for k in tokens if not w.start("num") <= k.start < w.end()]  # "ninety-six" read alone
        num = w.group("num").lower()
        whole = (_TENS[w.group("tens").lower()] + (_WORD_NUMBERS[w.group("unit").lower()] if w.group("unit")
                                                   else 0)) if w.group("tens") \
            else 1 if num in ("a", "an") else _WORD_NUMBERS[num]
        tok = Token(w.start("num"), w.end(), whole + 0.5, 1, "pts" if w.group("points") else "%",
                    t[w.end() : w.end() + 40], False, word=True, approximate=bool(w.group("about")))
        _role(t, tok, [])
        if tok.statement and not tok.decoy and tok.role == "value":
            tokens.append(tok)
    for w in _ONE_IN_RE.finditer(t):  # "about one test digit in five right": a share, 1/N
        if any(k.start <= w.start("n") < k.end for k in tokens):
            tokens = [k for k in tokens if not k.start <= w.start("n") < k.end]
        n = w.group("n")
        count = int(n) if n.isdigit() else _WORD_NUMBERS[n.lower()]
        if count >= 2:
            # placed at its N, the number the share is written with
            tokens.append(Token(w.start("n"), w.end(), 100.0 / count, 0, "%", t[w.end() : w.end() + 40],
                                False, word=True, approximate=bool(w.group("about"))))
    return sorted(tokens, key=lambda k: k.start)


#: A share as "one in N": "about one test digit in five right", "one image in 9 correct".
_ONE_IN_RE = re.compile(r"(?P<about>\b(?:about|roughly|around|nearly|almost|some)\s+)?"
                        r"\bone\s+(?:[a-z-]+\s+){0,3}?in\s+(?:every\s+)?"
                        r"(?P<n>\d{1,3}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty)"
                        r"\s+(?:right|correct(?:ly)?|classified correctly|is right|are right)\b", re.I)


#: A half in words before a unit: "half a point", "one and a half points", "two and a half RMSE".
#: A share in words after "by": "cuts the error by roughly a third", "lowers it by half".
_FRACTIONS = {"half": 0.5, "a half": 0.5, "one half": 0.5, "a third": 1 / 3, "one third": 1 / 3,
              "two thirds": 2 / 3, "a quarter": 0.25, "one quarter": 0.25, "three quarters": 0.75,
              "a fifth": 0.2, "one fifth": 0.2, "a tenth": 0.1, "one tenth": 0.1}
_BY_A_FRACTION_RE = re.compile(r"\b(?:cuts?|cut|reduces?|reduced|lowers?|lowered|shrinks?|shrank|drops?"
                               r"|dropped|raises?|raised|increases?|increased|improves?|improved)\b[^.;]{0,50}?\bby\s+"
                               r"(?:about\s+|around\s+|roughly\s+|nearly\s+|almost\s+|some\s+|over\s+)?"
                               r"(?P<frac>(?:a|one)\s+(?:half|third|quarter|fifth|tenth)|two\s+thirds"
                               r"|three\s+quarters|half)\b(?!\s+(?:an?\s|of\s+an?\s|points?|percent|pp\b|seeds?|runs?))",
                               re.I)
_WORD_HALF_RE = re.compile(r"\b(?:half\s+an?|(?P<whole>one|two|three|four|five|six|seven|eight|nine|ten)"
                           r"\s+and\s+a\s+half)(?=\s)", re.I)
#: A half after its unit or a compound number: "a point and a half", "two points and a half",
#: "about ninety-six and a half percent".
_AND_A_HALF_RE = re.compile(
    r"(?P<about>\b(?:about|roughly|around|nearly|almost|some)\s+)?(?<![-\w])(?P<num>a|an|one|two|three|four|five"
    r"|six|seven|eight|nine|ten|(?P<tens>"
    + "|".join(("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"))
    + r")(?:[- ](?P<unit>one|two|three"
    r"|four|five|six|seven|eight|nine))?)(?P<points>\s+(?:percentage\s+)?points?)?\s+and\s+a\s+half"
    r"(?P<percent>[ \u00a0]+(?:percent|per\s+cent)\b)?", re.I)

_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
#: A count in words: "twenty-six" (compound tens) or one of the words above ("ten", "a dozen").
_WORD_COUNT_RE = re.compile(r"\b(?:(?P<tens>" + "|".join(_TENS) + r")[- ](?P<unit>one|two|three|four|five|six"
                            r"|seven|eight|nine)\b|" + _WORD_NUMBER_RE.pattern[2:-2] + r")\b", re.I)
#: A difference in words after "by": "by eighty-five", "by about ninety points" (compound tens).
_WORD_DIFFERENCE_RE = re.compile(
    r"\bby\s+(?P<about>about\s+|roughly\s+|around\s+|nearly\s+|almost\s+)?(?P<tens>" + "|".join(_TENS)
    + r")(?:[- ](?P<unit>one|two|three|four|five|six|seven|eight|nine))?\b(?!\s*(?:%|percent|per cent"
    r"|seeds?|runs?|epochs?|times)\b)", re.I)


_DIGIT_WORDS = {"zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9}
_UNITS_WORDS = "one|two|three|four|five|six|seven|eight|nine"
_SMALL_WORDS = ("zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
                "|fifteen|sixteen|seventeen|eighteen|nineteen")
#: A small whole number in words before "points", after "by": "leads the MLP by about two points".
_WORD_SMALL_POINTS_RE = re.compile(
    r"\bby\s+(?P<about>about\s+|roughly\s+|around\s+|nearly\s+|almost\s+|some\s+)?(?P<small>"
    + _SMALL_WORDS + r")\s+(?:percentage\s+)?points?\b", re.I)
#: A decimal in words: "ninety-eight point four", "one point three", "fifty-seven point two".
_WORD_DECIMAL_RE = re.compile(
    r"\b(?:(?P<tens>" + "|".join(_TENS) + r")(?:[- ](?P<unit>" + _UNITS_WORDS + r"))?|(?P<small>"
    + _SMALL_WORDS + r"))\s+point\s+(?P<digits>(?:(?:zero|oh|" + _UNITS_WORDS + r")\b[ -]?)+)", re.I)
#: A compound number in words stated as a level: "is about fifty-eight", "of roughly sixty-one".
_WORD_LEVEL_RE = re.compile(
    r"\b(?:is|was|of|at|reaches|reached)\s+(?P<about>about\s+|roughly\s+|around\s+|nearly\s+|some\s+)?"
    r"(?P<tens>" + "|".join(_TENS) + r")[- ](?P<unit>" + _UNITS_WORDS + r")\b(?!\s+point\b)", re.I)

#: A whole number in words right before "percent": "around twenty percent", "ninety-seven per cent".
_WORD_PERCENT_RE = re.compile(
    r"(?P<about>\b(?:about|roughly|around|nearly|almost|some)\s+)?\b(?P<num>(?P<tens>" + "|".join(_TENS)
    + r")(?:[- ](?P<unit>" + _UNITS_WORDS + r"))?|(?P<small>" + _SMALL_WORDS + r"))"
    r"(?=[ \u00a0]*(?:percent|per cent)\b)", re.I)

#: A whole number in words before a metric's units and a direction: "fourteen RMSE units worse",
#: "twenty-two points lower".
_WORD_UNITS_DIFFERENCE_RE = re.compile(
    r"\b(?P<num>(?P<tens>" + "|".join(_TENS) + r")(?:[- ](?P<unit>" + _UNITS_WORDS + r"))?|(?P<small>"
    + _SMALL_WORDS + r"))\s+(?:[A-Za-z]+\s+)?(?:units?|points?)\s+(?:(?:higher|lower|worse|better)\b"
    r"|of\s+(?:the\s+)?(?:(?:test|validation|val|mean)\s+)?(?:rmse|mse|mae|loss|error)\b)", re.I)


def _word_integer(w: re.Match[str]) -> int:
    if w.group("tens"):
        unit = w.group("unit")
        return _TENS[w.group("tens").lower()] + (_WORD_NUMBERS[unit.lower()] if unit else 0)
    return int(_WORD_NUMBERS[w.group("small").lower()])


def _word_token(t: str, w: re.Match[str], value: float, decimals: int) -> Token | None:
    """A number written in words, with its unit after it, read as a statement where it is one."""
    start = w.start("tens") if w.group("tens") else w.start("small")
    end = w.end()
    while end > start and t[end - 1] in " -":
        end -= 1
    unit = ""
    if pm := _PERCENT_RE.match(t, end):
        unit, end = "%", pm.end()
    elif pts := _POINTS_RE.match(t, end):
        unit, end = "pts", pts.end()
    minus = re.search(r"\b(?:minus|negative)\s+$", t[max(0, start - 12) : start], re.I)
    if minus is not None:  # "minus sixteen point four": a signed number in words
        start, value = start - len(minus.group(0)), -value
    tok = Token(start, end, value, decimals, unit, t[end : end + 40], decimals == 0, word=True,
                signed=minus is not None)
    _role(t, tok, [])
    return tok if tok.statement and not tok.decoy and tok.role not in ("n", "seeds_needed") else None


#: "to" before a signed end: "+0.2 to +2.5", "minus 22.6 to minus 10.2".
_TO_SIGNED = re.compile(r"[\s\u00a0]*to[\s\u00a0]*(?:[+−-]|(?:minus|plus)\b)", re.I)


#: "The interval of the MLP's improvement over linear regression runs from 0.2 to 4.5": an
#: interval named further back than the window, then how it runs.
_INTERVAL_RUNS = re.compile(r"\b(?:CIs?|intervals?)\b[^.;:]{0,110}?\b(?:runs?|ran|goes|went|extends?|spans?"
                            r"|stretches|reaches)\s+from\s*$", re.I)


#: After a count: configurations, of a sweep where it says so ("twelve configurations in the sweep").
_SWEEP_SIZE_AFTER = re.compile(r"[\s\u00a0]+(?:(?:hyper-?parameter|learning-rate|lr|random|grid|different"
                               r"|distinct|sweep)\s+){0,2}(?:configurations?|configs?|trials|combinations"
                               r"|grid\s+points)\b(?P<sweep>[^.;:]{0,30}?\b(?:in|of|for)\s+(?:the|our|its|a|this|that)"
                               r"\s+(?:[\w-]+\s+)?(?:sweep|search|grid)\b)?", re.I)
#: Before it: the sweep that holds them ("the sweep has", "a grid of", "the search covered all").
_SWEEP_BEFORE = re.compile(r"\b(?:sweep|search|grid)\b[^.;:]{0,40}?\b(?:has|had|holds?|held|of|with|covers?"
                           r"|covered|spans?|spanned|ran|runs|trained|tried|evaluated|explored|includes?"
                           r"|included|comprises?|comprised|is|was)\s+(?:all\s+|only\s+|just\s+)?$", re.I)
#: A sweep still to be run ("try a sweep with 32 configurations on the spare node"): no claim's.
_PLANNED_SWEEP = re.compile(r"\b(?:try|trying|run|launch|plan\w*|next|could|should|would|will|want)\b"
                            r"[^.;]{0,25}\ba\s+(?:\w+\s+)?(?:sweep|search|grid)\b", re.I)
#: Right before it: the budget of an expected maximum, not the sweep's size ("trying 4 configurations").
_BUDGET_CUE_BEFORE = re.compile(r"\b(?:trying|try|tries|best\s+of|budget\s+of|k\s*=|at|first|only)\s+$",
                                re.I)


def _role(t: str, tok: Token, tokens: list[Token]) -> None:
    """What the number states: an interval end, a count of seeds, a probability, or a value."""
    s, end = tok.start, tok.end
    window = t[max(0, s - 60) : s]
    if tok.integer and not tok.unit:
        if (size := _SWEEP_SIZE_AFTER.match(t, end)) is not None \
                and (size.group("sweep") or _SWEEP_BEFORE.search(window)) \
                and not _BUDGET_CUE_BEFORE.search(window) and not _PLANNED_SWEEP.search(window):
            tok.role = "configurations"  # "the sweep has 16 configurations", "twelve configs in the sweep"
            return
        if re.search(r"\bn\s*=\s*$", window) and _COUNT_NOUNS.match(t, end) \
                and not _SEEDS_AFTER.match(t, end):
            tok.statement = False  # n = 360 test images: a count of things
            return
        if _SEEDS_AFTER.match(t, end) and _TALLY_BEFORE.search(window):
            tok.decoy = True  # "the CNN is ahead on three seeds and tied on two": a tally of seeds
            return
        if _SEEDS_AFTER.match(t, end) or re.search(r"\bn\s*=\s*$", window) or _PER_GROUP_AFTER.match(t, end):
            left = t[max(0, s - 80) : s]
            left = re.split(r"[;.!?]\s|[;:]", left)[-1]
            right = re.split(r"[;.!?]\s|[;:(]", t[end : end + 60])[0]
            sentence = left + " " + right
            needed = not re.search(r"\bn\s*=\s*$", window) and (
                _NEEDED_CUE.search(sentence) or (tok.approximate and _PER_MODEL.search(sentence)))
            if needed and _TOO_FEW_AFTER.match(t, end):
                needed = None  # "five seeds cannot resolve it": the seeds that were run, too few
            if needed and not tok.approximate and _RAN_VERB_BEFORE.search(window) \
                    and not _NEEDED_CUE.search(_LOW_POWER.sub(" ", _PER_GROUP_CUE.sub(" ", sentence))):
                needed = None  # "Each comparison pairs four seeds per group", "with 5 per group the
                # test has little power": the count that was run
            if needed and not _NEEDED_CUE.search(_NOT_RESOLVED.sub(" ", sentence)) \
                    and not re.search(r"\b(?:fewer|less|more)\s+than\s*$|\bat\s+least\s*$", left, re.I):
                needed = None  # "is not resolved by 5 seeds", "with 5 seeds ... not resolved": too few
            tok.role = "seeds_needed" if needed else "n"
            if tok.value == 1 and re.match(r"[-‑](?:seed|run)\b"
                                           r"|\s+(?:seed|run)\b[^.;]{0,40}?\b(?:each|per|apiece)\b",
                                           t[end : end + 50], re.I):
                tok.decoy = True  # "the one-seed variance", "one seed each": what one run shows
                return
            if (_TOTAL_RUNS_BEFORE.search(t, max(0, s - 20), s)
                    and re.match(r"[\s\u00a0}]*(?:runs?|trainings?|jobs?)\b", t[end : end + 12], re.I)) \
                    or _TOTAL_RUNS_AFTER.match(t, end):
                tok.decoy = True  # "for all 15 runs", "41 runs in total": a tally of every run, no n
                return
            if _MORE_SEEDS_AFTER.match(t, end):
                tok.decoy = True  # "queue 5 more seeds per arm": runs to add, neither count nor estimate
                return
            if _PLANNED_BEFORE.search(t, max(0, s - 60), s) and not needed:
                tok.decoy = True  # "Re-run with 12 seeds per model": runs planned, no count of the claim's
                return
            if tok.decoy and tok.role == "n" and re.search(r"\bseed\s*$", window, re.I):
                return
            if re.search(r"\bseeds?\b|\bruns?\b|n\s*=", t[end : end + 30] + window[-6:], re.I) \
                    and not _RATIO.match(t[max(0, s - 1) : end + 1]):
                tok.decoy = False  # "5 seeds"; not "20/20 runs sealed", a tally of runs done
            return
        line = t[t.rfind("\n", 0, s) + 1 : s]
        if _SEEDS_NEEDED_LABEL.match(line) or _SEEDS_NEEDED_LIST.match(line):
            tok.role = "seeds_needed"  # "Seeds needed for the width comparison, per verify: about 62"
            return
        prev = tokens[-1] if tokens else None
        if prev is not None and prev.role == "seeds_needed" and not prev.decoy \
                and _NEEDED_ELIDED.fullmatch(t, prev.end, s):
            tok.role = "seeds_needed"  # "about 10 seeds per group, and the width comparison about 26"
            tok.approximate = tok.approximate or prev.approximate
            return
        if _SEEDS_NAMED_BEFORE.search(t, max(0, s - 40), s):
            # "the seeds needed, 26 per group", "puts the seeds needed at about 18 per group"
            tok.role = "seeds_needed" if _NEEDED_CUE.search(t, max(0, s - 40), s) else "n"
            if tok.role == "seeds_needed" and tok.setting:
                tok.decoy = tok.setting = False  # "the seeds-needed estimate for width is 62": no setting
            return
        in_units = _UNITS_COMPARED.match(t, end) is not None or (
            _BARE_UNITS.match(t, end) is not None and (
                _BY_BEFORE.search(window) is not None
                or _METRIC_BEFORE.search(t, _clause_bounds(t, s, s)[0], s) is not None))
        if (_COUNT_NOUNS.match(t, end) or _PLURAL_AFTER.match(t, end)) and not _METRIC_UNITS.match(t, end) \
                and not in_units:
            tok.statement = False  # 1,797 images, 15 epochs, 442 patients: a count of things
            return
    if _PROB_BEFORE.search(t, max(0, s - 130), s) or (
            not tok.unit.startswith("p") and _PROB_AFTER.match(t, end)):
        tok.role = "prob_better"
        return
    for role, before, after in _ENDS_IN_WORDS:
        if before.search(t, max(0, s - 40), s) or after.match(t, end):
            tok.role = role  # "its upper CI end, 17.5%", "reaches down to 0.2", "+1.1 points at the top"
            tok.bound = ""  # "the CI up to +0.4": the end itself, not a bound on it
            return
    if (later := _END_NAMED_LATER.match(t, end)) is not None:
        tok.role, tok.bound = ("ci_high" if later.group("high") else "ci_low"), ""
        return
    if _AN_END_AFTER.match(t, end):
        tok.role, tok.bound = "ci_end", ""  # "-22.6 is the end of the interval": either end
        return
    prev = tokens[-1] if tokens else None
    between = t[prev.end : s] if prev else ""
    if prev is not None and prev.decoy and re.fullmatch(r"[\s\u00a0]*(?:%[\s\u00a0]*)?to[\s\u00a0]*",
                                                        between) \
            and _SPREAD_FROM.search(t, max(0, prev.start - 30), prev.start):
        tok.decoy = True  # the other end of a seeds' spread
        return
    if prev is not None and prev.setting and re.fullmatch(
            r"[\s\u00a0]*(?:%[\s\u00a0]*)?(?:to|–|—|-|--|,|,?\s*and|,?\s*or)[\s\u00a0]*", between):
        tok.decoy = tok.setting = True  # "learning rates 0.003 to 0.1", "0.003, 0.01 and 0.1": the
        # other end, or the next item, of a setting
        return
    if prev is not None and prev.role == "ci_low" and re.fullmatch(
            r"[\s\u00a0]*(?:,|;|–|—|-|−|--|to|and|\.\.\.?|…)[\s\u00a0]*", between):
        tok.role = "ci_high"
        if not prev.unit and tok.unit:
            prev.unit = tok.unit  # 97.8–98.6%: the unit once at the end
        return
    follow = re.match(r"[\s\u00a0]*(?:,|;|–|—|-|−|--|to|and|\.\.\.?|…)[\s\u00a0]*"
                      r"(?:[+−-]|(?:minus|plus)[ \u00a0]+)?\d",  # "minus 22.6 to minus 10.2": signs in words
                      t[end : end + 20], re.I)
    if follow is None:
        return
    sep = follow.group(0)
    interval = (_INTERVAL_OPEN.search(t, max(0, s - 3), s) is not None
                or _CI_BEFORE.search(window) is not None
                or re.search(r"[–—…]|--|-(?=\s*\d)|\.\.", sep) is not None)  # "−22.6 … −10.2": a range
    to_range = "to" in sep and (re.search(r"\b(?:CIs?|intervals?|confidence|credible)\b", window, re.I)
                                or (tok.signed and _TO_SIGNED.match(sep))
                                or _INTERVAL_RUNS.search(t, max(0, s - 160), s))
    if to_range:
        interval = True  # "the interval runs from 0.2 to 3.5", "+0.2 to +2.5"
    elif _SPREAD_FROM.search(window) and "to" in sep:
        tok.decoy = True  # "its five seeds spread from 4.4% to 17.2%": seeds' values, not the claim's
        return
    elif re.search(r"\bfrom\s*$", window, re.I) and "to" in sep:
        interval = False  # "from 95.0% to 96.4%": a change, not an interval
    if re.search(r"\band\b", sep) and not re.search(r"\bbetween\s*$", window, re.I):
        interval = False
    if "," in sep and _INTERVAL_OPEN.search(t, max(0, s - 3), s) is None:
        interval = False
    if interval:
        tok.role = "ci_low"
