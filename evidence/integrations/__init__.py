"""Adapters from training libraries to the own-loop contract (``train(ctx)``, docs/contracts.md 1b).

* ``lightning``: PyTorch Lightning. ``fit(ctx, module, ...)`` trains a ``LightningModule`` with a
  ``CheckpointIO`` plugin that maps Lightning's checkpoints to ``ctx.checkpoint``/``ctx.restore``,
  a callback that offers a checkpoint after every batch (and at the right place of an epoch's
  end) and logs its metrics through ``ctx.log``, a resumable sampler seeded by (seed, epoch),
  quiet defaults, and SIGTERM left to the engine (the run stops INTERRUPTED with a checkpoint).
* ``hf``: the Hugging Face ``transformers.Trainer``. ``train(ctx, trainer_factory)`` runs a
  ``Trainer`` with a ``TrainerCallback`` that asks the engine when to save and hands the
  Trainer's checkpoint folder to ``ctx.checkpoint``; a resume materialises the restored folder
  where the Trainer expects it (``resume_from_checkpoint``).

``scores``: the default classifier metrics both return and their ``evaluate`` hooks recompute.

Each is an optional extra (``pip install evidence[lightning]``, ``evidence[hf]``); nothing in the
engine imports them.
"""
