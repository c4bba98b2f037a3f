"""Layer 7: doit task builders, the only package that imports doit.

base       DOIT_CONFIG, the user-error decorators shared by every builder
train      train and fsck tasks
artifacts  figure and table tasks
verify     the verify task
deliver    the deliver tasks
info       `doit info` in this process (for `evidence why`)
standard   the standard task set for a one-line dodo.py
"""
