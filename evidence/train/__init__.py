"""Layer 3: running one training run to a sealed result, in its own process.

runner       the run's life: prepare, smoke, resume, train, verify by load, seal
ownloop      the second trainer contract: the project's own loop, given a run context
checkpoint   atomic, digest-verified checkpoints and resume
meter        time, memory peaks and compute of a run (recorded in its provenance)
baseline     a regression's floor: its metrics when predicting the training mean
distributed  torchrun process groups, one process per device
devices      device discovery and CPU/GPU slot allocation
worker       the warm worker: a fork server with torch imported, one child per run
"""
