"""Layer 5: the presentation of evidence: figures and tables, each with its provenance.

artifacts  figure/table specs, their selected runs, source_data.csv and sidecars
render     rendering a figure or table from its source data (re-opened and checked)
plotting   Matplotlib figures
tables     Markdown and LaTeX tables
"""
