"""One run, several processes: the runner's view of ``torch.distributed``.

A run with ``world_size = N`` is launched by torchrun (``python -m torch.distributed.run
--standalone --nproc_per_node=N -m evidence.train.runner ...``), one process per device: backend
``nccl`` on CUDA, ``gloo`` on the CPU. The runner talks to the other processes only through a
:class:`Group`, so that the single-process path (:data:`LOCAL`, world size 1) runs exactly the
code it ran before scale-out existed and performs no communication at all.

What a distributed run does differently, and why:

* **Global batches, split across ranks.** Every rank computes the same epoch order
  (``batch_order`` depends only on seed and epoch) and trains on a contiguous share of each
  global batch. Each rank's loss is weighted by its share (``n_rank * N / n_batch``) so that
  DistributedDataParallel's gradient *average* equals the gradient of the whole batch's mean
  loss: the same optimisation step as world size 1, summed in another order. The loss each
  step returns is all-reduced, so ``train/loss`` is the whole batch's mean on every rank.
* **Rank 0 owns the disk.** Only rank 0 writes status, checkpoints, results and seals; every
  rank loads the checkpoint rank 0 chose, and a checkpoint holds the RNG states of *all* ranks
  (dropout masks differ per rank), so resume is bit-identical under DDP too.
* **Agreement before action.** Whether to checkpoint (the step cadence, or any rank's clock)
  and whether to stop (a signal on *any* rank) is all-reduced every step over a small gloo
  group, so all ranks save and stop at the same step; a rank that stopped alone would leave the
  others blocked in the next gradient all-reduce.
* **Control messages have their own group.** Flags, the lock decision and the final barrier go
  over a gloo group with a long timeout (rank 0 may wait for another process that holds the
  run's lock, or spend a while verifying and sealing); gradients use the default group.
"""

from __future__ import annotations

import os
import random
import signal
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import torch

from evidence.core.errors import RunFailedError

#: Control messages may wait this long (another process holding the run's lock, sealing).
CONTROL_TIMEOUT = timedelta(days=7)


def shard_bounds(n: int, rank: int, world: int) -> tuple[int, int]:
    """Rank ``rank``'s contiguous share ``[lo, hi)`` of ``n`` items (sizes differ by at most 1)."""
    base, extra = divmod(n, world)
    lo = rank * base + min(rank, extra)
    return lo, lo + base + (1 if rank < extra else 0)


class Group:
    """The processes that train one run together; this base class is the world of one process."""

    rank = 0
    world = 1
    local_rank = 0
    backend = "none"

    def __init__(self, device: torch.device | None = None) -> None:
        self.device = device if device is not None else torch.device("cpu")

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def place(self, model: torch.nn.Module) -> None:
        """Move a freshly built model to this process's device (in place; optimizers keep working)."""
        if self.device.type != "cpu":
            model.to(self.device)

    def step_fn(self, model: torch.nn.Module) -> Any:
        """The function that trains one global batch (``training.train_step`` for one process)."""
        from evidence.numerics import training

        return training.train_step

    def diverge_rng(self, seed: int) -> None:
        """Give each rank its own RNG streams (dropout); a single process keeps its seeding."""

    def agree(self, signum: int, due: bool) -> tuple[int, bool]:
        """The stop signal (0: none) and checkpoint decision that every rank acts on."""
        return signum, due

    def broadcast(self, value: Any) -> Any:
        """Rank 0's ``value`` on every rank."""
        return value

    def gather(self, value: Any) -> list[Any]:
        """Every rank's ``value``, in rank order, on every rank."""
        return [value]

    def barrier(self) -> None:
        """Wait until every rank got here."""

    def rng_record(self, local: dict[str, Any]) -> dict[str, Any]:
        """The RNG part of a checkpoint (collective: every rank calls it at the same step)."""
        return {"rng": local}

    def rng_from(self, state: dict[str, Any]) -> dict[str, Any]:
        """This rank's RNG state out of a checkpoint."""
        rng: dict[str, Any] = state["rng"]
        return rng

    def load_checkpoint(self, checkpoints: Any) -> Any:
        """The newest valid checkpoint, the same one on every rank (or None)."""
        return checkpoints.load_latest()

    def describe(self) -> dict[str, Any]:
        """What provenance records about the processes and devices that trained the run."""
        info: dict[str, Any] = {"kind": self.device.type, "count": self.world,
                                # the CPU kernel level decides how floats are summed: an import
                                # expects bit-identical numbers only where it matches
                                "cpu_capability": torch.backends.cpu.get_cpu_capability()}
        if self.world > 1:
            info.update(world_size=self.world, backend=self.backend)
        if self.device.type == "cuda":
            info["names"] = [torch.cuda.get_device_name(self.device)]
            info["cuda_visible_devices"] = os.environ.get("CUDA_VISIBLE_DEVICES")
        return info

    def close(self) -> None:
        """Leave the group."""


#: The one-process world: no communication, the pre-scale-out code path.
LOCAL = Group()


class DistributedGroup(Group):
    """A torchrun world of ``world`` processes (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK`` set)."""

    def __init__(self, device: torch.device, backend: str) -> None:
        import torch.distributed as dist

        super().__init__(device)
        self.backend = backend
        if device.type == "cuda":
            torch.cuda.set_device(device)
        _die_with_launcher()
        dist.init_process_group(backend=backend)
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.control = dist.new_group(backend="gloo", timeout=CONTROL_TIMEOUT)

    def step_fn(self, model: torch.nn.Module) -> Any:
        return ShardedStep(self, model)

    def diverge_rng(self, seed: int) -> None:
        derived = int(np.random.SeedSequence([seed, self.rank]).generate_state(1)[0])
        random.seed(derived)
        np.random.seed(derived)
        torch.manual_seed(derived)

    def agree(self, signum: int, due: bool) -> tuple[int, bool]:
        import torch.distributed as dist

        flags = torch.tensor([float(signum), 1.0 if due else 0.0])
        dist.all_reduce(flags, op=dist.ReduceOp.MAX, group=self.control)
        return int(flags[0]), bool(flags[1])

    def broadcast(self, value: Any) -> Any:
        import torch.distributed as dist

        box = [value]
        dist.broadcast_object_list(box, src=0, group=self.control)
        return box[0]

    def gather(self, value: Any) -> list[Any]:
        import torch.distributed as dist

        out: list[Any] = [None] * self.world
        dist.all_gather_object(out, value, group=self.control)
        return out

    def barrier(self) -> None:
        import torch.distributed as dist

        dist.barrier(group=self.control)

    def rng_record(self, local: dict[str, Any]) -> dict[str, Any]:
        states = self.gather(local)
        return {"rng": states[0], "rank_rng": states}

    def rng_from(self, state: dict[str, Any]) -> dict[str, Any]:
        ranks = state.get("rank_rng")
        if not isinstance(ranks, list) or len(ranks) != self.world:
            raise RunFailedError(f"checkpoint holds RNG states for {len(ranks or [])} rank(s), this "
                                 f"run has {self.world}", hint="the checkpoint belongs to another run")
        rng: dict[str, Any] = ranks[self.rank]
        return rng

    def load_checkpoint(self, checkpoints: Any) -> Any:
        from evidence.train.checkpoint import Checkpoint

        found = checkpoints.load_latest() if self.is_main else None
        chosen = self.broadcast((str(found[0].path), found[0].step, found[0].epoch)
                                if found is not None else None)
        if chosen is None or self.is_main:
            return found
        path, step, epoch = chosen
        state = torch.load(path, map_location="cpu", weights_only=True)
        return Checkpoint(Path(path), int(step), int(epoch)), state

    def close(self) -> None:
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()


def _die_with_launcher() -> None:
    """Get SIGTERM when torchrun dies (Linux): torchrun starts every rank in its own session, so
    a launcher killed with SIGKILL would otherwise leave its ranks training as orphans. SIGTERM
    makes them agree on a stop, checkpoint and exit like any interrupted run."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if os.getppid() == 1:  # the launcher died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)


class ShardedStep:
    """One DDP step on this rank's share of a global batch; returns the whole batch's mean loss."""

    def __init__(self, group: DistributedGroup, model: torch.nn.Module) -> None:
        from torch.nn.parallel import DistributedDataParallel

        self.group = group
        ids = [group.device] if group.device.type == "cuda" else None
        self.ddp = DistributedDataParallel(model, device_ids=ids)

    def __call__(self, recipe: Any, x: torch.Tensor, y: torch.Tensor) -> float:
        import dataclasses

        import torch.distributed as dist

        from evidence.numerics import training

        n = len(x)
        lo, hi = shard_bounds(n, self.group.rank, self.group.world)
        if hi > lo:
            # The engine's own step (whatever it does: micro-batches, autocast) on the DDP
            # wrapper, with the loss weighted by this rank's share of the global batch.
            weight = (hi - lo) * self.group.world / n
            base_loss = recipe.loss

            def weighted(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
                return base_loss(outputs, targets) * weight

            local = training.train_step(dataclasses.replace(recipe, model=self.ddp, loss=weighted),
                                        x[lo:hi], y[lo:hi])
        else:  # fewer samples than ranks: contribute zero gradients, keep the all-reduce in step
            self.ddp.train()
            recipe.optimizer.zero_grad(set_to_none=True)
            (self.ddp(x[:0].to(self.group.device)).sum() * 0.0).backward()
            recipe.optimizer.step()
            local = 0.0
        total = torch.tensor([local / self.group.world], dtype=torch.float64, device=self.group.device)
        dist.all_reduce(total)
        return float(total[0])


def init_from_env(identity: dict[str, Any]) -> Group:
    """The group this process belongs to, checked against the run's identity.

    The world size is part of the run key, so a run launched with another number of processes
    than its identity names would seal numbers under a key that does not describe them.
    """
    world = int(identity.get("world_size", 1))
    launched = int(os.environ.get("WORLD_SIZE", "1"))
    if launched != world:
        raise RunFailedError(f"this run's identity has world_size {world} but it was launched with "
                             f"{launched} process(es)",
                             hint=f"launch it with torchrun --nproc_per_node={world} (doit train does)")
    kind = str(identity.get("device", "cpu"))
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise RunFailedError("this run trains on CUDA (device = 'cuda') but no GPU is visible",
                                 hint="run it on a machine with a GPU, or check CUDA_VISIBLE_DEVICES")
        # Deterministic cuBLAS needs a fixed workspace; must be set before the first CUDA call.
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    else:
        device = torch.device("cpu")
    if world == 1:
        return LOCAL if kind == "cpu" else Group(device)
    return DistributedGroup(device, "nccl" if kind == "cuda" else "gloo")
