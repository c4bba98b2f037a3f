"""Layer 1: the sealed, content-addressed run store (the evidence itself).

runs    sealing, finding, verifying (fsck) and locking runs under runs/
survey  one look at runs/ per process: the cheap up-to-date check of every train task
"""
