"""Layer 5: statistics over sealed runs: effect, noise, insufficient evidence or bug.

stats        intervals, effect sizes, power, expected validation performance
classify     the verdict of one comparison, with its reason
determinism  which groups are a fixed value: declared deterministic, or shown to be
thresholds   the verdict's thresholds, one frozen object (no statistics imported)
comparisons  comparisons.toml: what verify checks
report       the verify report (build/verify/report.json)
reportfile   reading that report (no statistics imported: the delivery steps read it)
runtable     the table of runs behind `evidence show` and the evidence page
rundiff      `evidence diff`: identity differences and metric deltas of two results
"""
