"""Layer 6: the deliverable: claims, their reconciliation, disclosures and the paper.

claims      EVIDENCE.json: claims resolved against the verify report and the runs
reconcile   every number and comparison in every document checked against its claim
prose       documents parsed (markdown-it-py, pylatexenc) into sentences and table rows
versions    a changelog's older releases and "(v0.3.0: ...)" asides: the record, no statement
statements  numbers in prose: decoys masked, each read with its unit and role
quantities  what a claim states: value, interval, n, seeds needed, P(better), in every form
attribution which claim and quantity a number states, by subjects, metric and role
wording     comparisons asserted in words, held to verify's verdict
overrides   claim macros redefined by hand in a LaTeX source (\\renewcommand, \\def) and what they print
disclose    integrity findings attached to the claims they affect
paper       rendering the paper (Jinja2 Markdown -> HTML)
ledger      the compute ledger and statement
prices      prices.toml: the cost of compute
provexport  PROV-JSON and RO-Crate exports, assembled from fragments kept between deliveries
provgraph   the fragment of the exports that one run, figure, table or the claims contribute
provcheck   validation: each new fragment in full, each assembled document by its structure
provtext    the exports' JSON text joined from records rendered once
texnames    the one rule from claim ids to LaTeX macro names
claimstex   claims.tex: every claim as LaTeX macros, disclosures bound to the values
latex       the LaTeX paper: paper/*.tex staged with the build's outputs and compiled to PDF
manifest    MANIFEST.json: written only over what the build wrote, checked before shipping
assemble    the steps of delivery, written into build/deliver.staging/
publish     build/deliver/ replaced whole by the staged deliverable, only when every step succeeded
layout      where the paper step reads and writes
summary     the one-screen summary printed on every `doit deliver`
checklist   the NeurIPS checklist items 7 and 8 answered from the evidence
evidencepage  evidence.html: the table of the runs the claims use, linked from the paper
"""
