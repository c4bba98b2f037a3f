"""The engine's exceptions.

One root, :class:`EvidenceError`; every subclass carries the process exit code that the
command line uses and a *hint* that tells the user how to fix the problem. User errors are
shown as one line (``ERROR: ...``) without a traceback, the way doit and click do it.

Exit codes follow doit's convention so that scripts can tell them apart:

* 0: everything ran and is up to date
* 1: a task failed (a run diverged, a gate rejected a figure, drift was found)
* 2: a task errored unexpectedly (a bug: a traceback is shown)
* 3: bad input before anything ran (a malformed config, EVIDENCE.json, figure spec)
* 75: a run was interrupted by a signal and can be resumed (EX_TEMPFAIL of sysexits.h)
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_TASK_FAILED = 1
EXIT_TASK_ERROR = 2
EXIT_BAD_INPUT = 3
EXIT_INTERRUPTED = 75


class EvidenceError(Exception):
    """Root of every error the engine raises on purpose."""

    exit_code: int = EXIT_TASK_FAILED

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def format(self) -> str:
        """One line for the user: the problem, then how to fix it."""
        text = f"ERROR: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text

    def __str__(self) -> str:
        return self.format()[len("ERROR: ") :]


class BadInputError(EvidenceError):
    """A file the user wrote is malformed: names the file, the field and what was expected."""

    exit_code = EXIT_BAD_INPUT

    def __init__(
        self,
        path: object,
        message: str,
        *,
        field: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = f"{path}"
        if field:
            where += f": field '{field}'"
        super().__init__(f"{where}: {message}", hint=hint)
        self.path = str(path)
        self.field = field


class UnknownNameError(EvidenceError):
    """The command line names something the project does not have (a task, a run pattern)."""

    exit_code = EXIT_BAD_INPUT


class IntegrityError(EvidenceError):
    """A sealed run, manifest or artifact does not match its recorded digests."""

    exit_code = EXIT_TASK_FAILED


class RunFailedError(EvidenceError):
    """A training run failed: smoke check, trainer exception, or verify-by-load mismatch."""

    exit_code = EXIT_TASK_FAILED


class RunInterruptedError(EvidenceError):
    """A run stopped on a signal after writing a checkpoint; starting it again resumes it."""

    exit_code = EXIT_INTERRUPTED


class GateError(EvidenceError):
    """A presentation artifact failed its re-open gate (blank figure, wrong series count)."""

    exit_code = EXIT_TASK_FAILED


class DriftError(EvidenceError):
    """A document states a number that no longer matches its evidence."""

    exit_code = EXIT_TASK_FAILED
