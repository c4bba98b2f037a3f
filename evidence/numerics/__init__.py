"""Layer 1: exactly the code that goes into a run key (its content, by logical name).

data      datasets, fixed hash-pinned splits, their digests
recipe    the trainer contract (a Recipe: model, optimiser, loss, metrics)
training  the engine-owned training loop and evaluation
stopping  early-stopping rules
loaders   a project's own datasets (datasets/<name>.py): files digest, splits, float targets
profile   numerics profiles (portable, native): CPU kernel choices pinned before torch starts

Editing any of these changes the key of every run that uses it (see docs/architecture.md);
loaders is keyed through the data identity of the runs on a project dataset only, and profile
through the ``numerics`` entry of every identity (the settings it pins, not its code).
"""
