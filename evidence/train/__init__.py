"""Layer 3: running one training run to a sealed result, in its own process.

runner       the run's life: prepare, smoke, resume, train, verify by load, seal
ownloop      the second trainer contract: the project's own loop, given a run context
selfcheck    the resume self-check of an own loop: straight vs interrupted-and-resumed, bit for bit
runlog       each run's own log: its process's output, bounded, quiet while an own loop runs
checkpoint   atomic, digest-verified checkpoints and resume
meter        time, memory peaks and compute of a run (recorded in its provenance)
baseline     a regression's floor: its metrics when predicting the training mean
distributed  torchrun process groups, one process per device
devices      device discovery and CPU/GPU slot allocation
worker       the warm worker: a fork server with torch imported, one child per run
"""
