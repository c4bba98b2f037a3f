"""Layer 4: runs beyond this process and this machine.

dispatch    launching a run locally, under torchrun or through submitit (Slurm)
warm        the client of the warm worker: a run forked with torch already imported
federation  exporting sealed runs and importing them on another machine, re-derived
pull        importing runs from the remote (evidence.remote) with federation's checks
"""
