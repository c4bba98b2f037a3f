"""Layer 6: the deliverable: claims, their reconciliation, disclosures and the paper.

claims      EVIDENCE.json: claims resolved against the verify report and the runs
reconcile   every number in every document checked against its claim
disclose    integrity findings attached to the claims they affect
paper       rendering the paper (Jinja2 Markdown -> HTML)
ledger      the compute ledger and statement
prices      prices.toml: the cost of compute
provexport  PROV-JSON and RO-Crate exports
texnames    the one rule from claim ids to LaTeX macro names
assemble    the steps of delivery and build/deliver/ with its MANIFEST.json
"""
