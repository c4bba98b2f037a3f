"""evidence: make for results.

Every number, figure and table of a paper as a deterministic function of one immutable
evidence layer (sealed, content-addressed training runs), built with doit.
"""

__version__ = "0.1.0"
