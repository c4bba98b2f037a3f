"""The resume self-check: a resume that would differ is stopped before the long run.

Why: an own loop (plain PyTorch, Lightning, a Hugging Face Trainer) can resume *silently*
differently: a ``DataLoader`` without ``generator=`` draws its base seed from the global RNG,
so a resumed run that creates one iterator more shifts dropout; a checkpoint after an epoch's
last batch resumes past the epoch-end hook and loses its row of metrics.jsonl; a library's own
checkpoint files are resumed without the engine. The sealed run would then differ from an
uninterrupted one with no word from the tool. The engine cannot read the loop, but it can run it.

Before the real run (on a fresh start), :func:`check` runs ``train(ctx)`` on a sliver of the
data (the first :data:`SAMPLES` samples of every split) with a probe context:

1. straight, up to the :data:`OFFERS`-th checkpoint offer (``ctx.checkpoint`` call), recording at
   every offer the step, the digest of the global RNG states and the rows logged so far;
2. again, stopped at the first offer and resumed from it, stopped at the first offer before
   which rows were logged (an epoch's end, where hooks run) and resumed again, up to the same
   offer; every checkpoint goes through ``torch.save`` and ``torch.load(weights_only=True)`` as
   the real ones do.

The state offered at that last offer (weights, optimizer, everything in it), the rows logged
and every offer's RNG digest must be equal bit for bit. When they are not, the run stops before
any long compute with the likely cause: a lost or repeated log row, the global RNG drawn
differently (a loader without a generator), or a state the checkpoint does not hold. A loop
that never offers a checkpoint cannot be interrupted cleanly or resumed by the engine and is
stopped too, unless it trains nothing (it returns ``"steps": 0``: a baseline has nothing to
resume). ``[smoke] resume_check = false`` turns the check off.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evidence.core.errors import RunFailedError
from evidence.core.hashing import digest_bytes

#: Samples of each split the probe runs see: a few batches per epoch, so an epoch's end comes soon.
SAMPLES = 64
#: Checkpoint offers of the straight probe run; the comparison is at the last.
OFFERS = 6


class ProbeStop(BaseException):
    """Ends a probe run at the offer the self-check chose (a BaseException: a loop's own
    ``except Exception`` lets it by)."""


@dataclasses.dataclass
class Offer:
    index: int
    step: int
    rng: str
    rows: int


@dataclasses.dataclass
class Probe:
    """What one probe run saw: its offers, the rows, the state at its stop, the saved checkpoint."""

    offers: list[Offer]
    history: list[dict[str, Any]]
    state: dict[str, str] | None = None
    saved: bytes | None = None
    restore_called: bool = False
    finished: bool = False
    returned_steps: Any = None


def rng_digest() -> str:
    import pickle

    from evidence.numerics import training

    state = training.rng_state()
    return digest_bytes(state["torch"].numpy().tobytes() + pickle.dumps((state["numpy"], state["python"])))


def fingerprint(value: Any, name: str = "state") -> dict[str, str]:
    """``name[key]...`` -> a digest of each leaf (tensors by dtype, shape and bytes)."""
    import torch

    if isinstance(value, dict):
        out: dict[str, str] = {}
        for key in sorted(value, key=str):
            out.update(fingerprint(value[key], f"{name}[{key!r}]"))
        return out
    if isinstance(value, list | tuple):
        out = {}
        for i, item in enumerate(value):
            out.update(fingerprint(item, f"{name}[{i}]"))
        return out
    if isinstance(value, torch.Tensor):
        tensor = value.detach().cpu().contiguous()
        raw = tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b""
        return {name: f"{tensor.dtype}{tuple(tensor.shape)}:{digest_bytes(raw)}"}
    return {name: repr(value)}


class ProbeContext:
    """The run context a probe run gets: same config, seed and device, a sliver of the data, a
    scratch folder of its own, checkpoints in memory; it stops the loop with :class:`ProbeStop`."""

    def __init__(self, real: Any, data: Any, directory: Path, stop_at: int, *, interrupt: bool,
                 resume_from: bytes | None = None, first_offer: int = 0) -> None:
        self.config = real.config
        self.seed = real.seed
        self.device = real.device
        self.info = real.info
        self.data = data
        self.directory = directory
        self.history: list[dict[str, Any]] = []
        self.steps = 0
        self.probe = Probe([], self.history)
        self._stop_at = stop_at
        self._interrupt = interrupt
        self._resume_from = resume_from
        self._next = first_offer
        self._source = real._execution.source
        self._row = real.row

    def restore(self) -> dict[str, Any] | None:
        import torch

        from evidence.numerics import training

        self.probe.restore_called = True
        if self._resume_from is None:
            return None
        record = torch.load(io.BytesIO(self._resume_from), map_location="cpu", weights_only=True)
        training.set_rng_state(record["rng"])
        self.history[:] = record["history"]
        self.steps = int(record["steps"])
        return dict(record["state"])

    def checkpoint_due(self, step: int | None = None) -> bool:
        return True  # every offer is taken, so that each can be compared

    def checkpoint(self, state: dict[str, Any] | Callable[[], dict[str, Any]], step: int | None = None,
                   *, force: bool = False) -> bool:
        import torch

        from evidence.numerics import training

        self.steps = self.steps + 1 if step is None else int(step)
        index = self._next
        self._next += 1
        self.probe.offers.append(Offer(index, self.steps, rng_digest(), len(self.history)))
        if index < self._stop_at:
            return True
        built = state() if callable(state) else state
        if self._interrupt:
            record = {"state": built, "rng": training.rng_state(), "history": list(self.history),
                      "steps": self.steps}
            buffer = io.BytesIO()
            torch.save(record, buffer)
            self.probe.saved = buffer.getvalue()
            try:
                torch.load(io.BytesIO(self.probe.saved), map_location="cpu", weights_only=True)
            except Exception as error:
                raise RunFailedError(f"{self._source}: the state given to ctx.checkpoint cannot be "
                                     f"loaded with torch.load(weights_only=True): {error}",
                                     hint="checkpoint tensors, numbers, strings, lists and dicts only "
                                          "(state_dict()s), never objects") from None
        else:
            self.probe.state = fingerprint(built)
        raise ProbeStop

    def log(self, step: int, **metrics: float) -> None:
        self.history.append(self._row(step, metrics))


def _sliver(dataset: Any) -> Any:
    splits = {name: dataclasses.replace(split, x=split.x[:SAMPLES], y=split.y[:SAMPLES])
              for name, split in dataset.splits.items()}
    return dataclasses.replace(dataset, splits=splits)


def _run(execution: Any, context: ProbeContext) -> Probe:
    """One probe run of ``train(ctx)``; its record (the loop's own errors fail the run)."""
    from evidence.numerics import training

    training.seed_everything(execution.spec.seed)
    try:
        result = execution.trainer.train(context)
    except ProbeStop:
        return context.probe
    except (RuntimeError, ValueError, TypeError, IndexError, KeyError, AttributeError) as error:
        raise RunFailedError(f"{execution.spec.task_name}: the resume self-check's probe (train(ctx) on "
                             f"the first {SAMPLES} samples of each split) failed: "
                             f"{type(error).__name__}: {error}",
                             hint=f"fix {execution.source}, or set [smoke] resume_check = false") from error
    context.probe.finished = True
    context.probe.returned_steps = result.get("steps") if isinstance(result, dict) else None
    weights = result.get("weights") if isinstance(result, dict) else None
    context.probe.state = fingerprint(weights if weights is not None else {}, "weights")
    return context.probe


def check(execution: Any, real: Any) -> None:
    """Run the self-check (see the module docstring); raise RunFailedError naming the cause."""
    started = time.perf_counter()
    data = _sliver(execution.dataset)
    folder = Path(tempfile.mkdtemp(prefix="selfcheck-", dir=execution.work))

    def probe(stop_at: int, interrupt: bool, resume_from: bytes | None = None, first: int = 0) -> Probe:
        scratch = Path(tempfile.mkdtemp(dir=folder))
        context = ProbeContext(real, data, scratch, stop_at, interrupt=interrupt,
                               resume_from=resume_from, first_offer=first)
        log = getattr(execution, "log", None)
        if log is None:
            return _run(execution, context)
        with log.quiet(show=False):
            return _run(execution, context)

    try:
        straight = probe(OFFERS - 1, interrupt=False)
        offers = straight.offers
        if not offers and straight.finished and straight.returned_steps == 0:
            print("resume self-check: train(ctx) trains nothing (it returned steps 0): nothing to "
                  "resume", file=sys.stderr, flush=True)
            return
        wrote = any(path.is_file() for path in folder.rglob("*"))
        if not offers and straight.finished and not wrote:
            # Nothing to resume and nothing of its own to resume from: a killed run starts again
            # from the beginning and ends the same (a closed-form fit, a rule, a lookup table).
            print("resume self-check: train(ctx) never offered a checkpoint and kept no files of "
                  "its own: a killed run starts again from the beginning", file=sys.stderr, flush=True)
            return
        if not offers:
            raise _failure(execution, "train(ctx) never offered a checkpoint (ctx.checkpoint): a "
                           "signal cannot stop it cleanly and a killed run cannot be resumed by the "
                           "engine (a library's own checkpoint files, e.g. Lightning's ModelCheckpoint "
                           "with ckpt_path=\"last\", would be resumed unverified)",
                           "call ctx.checkpoint(state, step) after every step, or train through "
                           "evidence.integrations.lightning / .hf")
        last = len(offers) - 1 if not straight.finished else len(offers)
        chain = interruptions(offers, len(straight.history) if straight.finished else None, last)
        saved: bytes | None = None
        seen: list[Offer] = []
        resumed: Probe | None = None
        for position, stop in enumerate(chain):
            begin = chain[position - 1] + 1 if position else 0
            part = probe(stop, interrupt=True, resume_from=saved, first=begin)
            if position and not part.restore_called:
                raise _not_restoring(execution)
            seen.extend(part.offers)
            if part.saved is None:
                break  # the loop ended before the offer to interrupt at
            saved = part.saved
        else:
            resumed = probe(last, interrupt=False, resume_from=saved, first=chain[-1] + 1)
            if not resumed.restore_called:
                raise _not_restoring(execution)
            seen.extend(resumed.offers)
        if resumed is not None:
            _compare(execution, straight, resumed, seen, chain)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"resume self-check passed in {time.perf_counter() - started:.2f} s ({len(straight.offers)} "
          f"checkpoint offers straight; interrupted and resumed at offer(s) "
          f"{', '.join(str(i + 1) for i in chain)})", file=sys.stderr, flush=True)


def interruptions(offers: list[Offer], final_rows: int | None, last: int) -> list[int]:
    """The offers to interrupt at, in order, all before ``last``: the first offer (mid-epoch, as
    a rule), then the first offer after which rows were logged (an epoch's end, where an
    epoch-end hook must not be skipped), then the first offer with rows logged just before it
    (resuming from an epoch's end position), each after the one before."""
    rows_after = [*(o.rows for o in offers[1:]), final_rows if final_rows is not None else -1]
    chain = [0]
    before = next((o.index for o, after in zip(offers, rows_after, strict=True)
                   if after > o.rows and o.index > chain[-1]), None)
    if before is not None and before < last:
        chain.append(before)
    after = next((o.index for previous, o in itertools.pairwise(offers)
                  if o.rows > previous.rows and o.index > chain[-1]), None)
    if after is not None and after < last:
        chain.append(after)
    return chain


def _failure(execution: Any, why: str, hint: str) -> RunFailedError:
    return RunFailedError(f"{execution.spec.task_name}: resume self-check failed: {why}",
                          hint=f"{hint}; nothing long ran ([smoke] resume_check = false skips the check)")


def _not_restoring(execution: Any) -> RunFailedError:
    return _failure(execution, "train(ctx) did not call ctx.restore() when started again, so a "
                    "killed run would start over (or resume from files the engine cannot check)",
                    "begin train(ctx) with state = ctx.restore() and load it when it is not None")


def _compare(execution: Any, straight: Probe, resumed: Probe, seen: list[Offer], chain: list[int]) -> None:
    """Straight vs interrupted-and-resumed, offer by offer, then the final state and rows."""
    by_index = {o.index: o for o in straight.offers}
    for offer in seen:
        mine = by_index.get(offer.index)
        if mine is None:
            raise _failure(execution, f"the resumed loop made checkpoint offer {offer.index + 1} at step "
                           f"{offer.step}, the uninterrupted one made {len(straight.offers)} offers",
                           "resume from the position saved in the state (epoch, batch, step)")
        if offer.rows != mine.rows:
            raise _failure(execution, f"a log row was {'lost' if offer.rows < mine.rows else 'repeated'}: "
                           f"at checkpoint offer {offer.index + 1} (step {offer.step}) the resumed run had "
                           f"logged {offer.rows} rows, the uninterrupted one {mine.rows}; likely a "
                           "checkpoint taken after an epoch's last batch but before its epoch-end logging, "
                           "which the resumed loop skips",
                           "offer the epoch's checkpoint after its ctx.log row (Lightning: "
                           "evidence.integrations.lightning)")
        if offer.step != mine.step:
            raise _failure(execution, f"checkpoint offer {offer.index + 1} came at step {offer.step} after "
                           f"the resume, at step {mine.step} without one: the loop does not continue "
                           "from the checkpoint's position", "save and restore the step, epoch and batch")
        if offer.rng != mine.rng:
            raise _failure(execution, f"the global random state differs at checkpoint offer "
                           f"{offer.index + 1} (step {offer.step}) after a resume at offer(s) "
                           f"{', '.join(str(i + 1) for i in chain)}; likely a DataLoader without "
                           "generator= (each new iterator draws its seed from the global RNG, and a resumed "
                           "run creates one more, so dropout shifts) or random numbers drawn before "
                           "ctx.restore()", "give every DataLoader generator=torch.Generator() and seed its "
                           "order from (ctx.seed, epoch); call ctx.restore() before drawing anything")
    if resumed.history != straight.history:
        at = _first_difference(resumed.history, straight.history)
        rows = [h[at] if at < len(h) else None for h in (resumed.history, straight.history)]
        raise _failure(execution, f"the logged rows differ: {len(resumed.history)} after a resume, "
                       f"{len(straight.history)} without one; row {at + 1} is {rows[0]} after a resume, "
                       f"{rows[1]} without one",
                       "keep ctx.log calls in the order of the steps, after the state they describe")
    if resumed.state != straight.state:
        assert resumed.state is not None and straight.state is not None
        differing = [k for k in sorted(set(resumed.state) | set(straight.state))
                     if resumed.state.get(k) != straight.state.get(k)]
        raise _failure(execution, f"the state after a resume is not bit-identical to an uninterrupted "
                       f"run's: {', '.join(differing[:4])}{' ...' if len(differing) > 4 else ''} "
                       f"({len(differing)} entries differ); likely something the loop uses is not in its "
                       "checkpoint (a scheduler, a counter, a random generator of its own) or the RNG is "
                       "not restored", "put every piece of mutable training state into the checkpoint")


def _first_difference(a: list[Any], b: list[Any]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
