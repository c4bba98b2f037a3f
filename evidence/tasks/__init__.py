"""Layer 7: doit task builders, the only package that imports doit.

base       DOIT_CONFIG, the user-error decorator shared by every builder
actions    engine steps as doit actions (an EvidenceError fails the task in one line)
train      train and fsck tasks
artifacts  figure and table tasks
verify     the verify task
deliver    the deliver tasks
checklist  the deliver tasks of the paper checklist and the evidence page
info       `doit info` in this process (for `evidence why`)
standard   the standard task set for a one-line dodo.py
moot       expensive uptodate checks, skipped when a file dependency changed (doit runs the task anyway)
quick      the no-op fast path: records the up-to-date index, builds the task list from it
warmdoit   the warm doit: a call served by a fork of a server that has the engine imported
"""
