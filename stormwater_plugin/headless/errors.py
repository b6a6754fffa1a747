"""How every command ends on bad input: one or two lines on stderr and exit 2, never a traceback."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import warnings
from types import FrameType
from typing import Callable, NoReturn, Sequence

from ..core.errors import StormwaterError
from ..core.printable import printable_text
from ..services.input_errors import InputError as InputError  # the reader's error, raised by the services it calls too


def fail(prog: str, message: str) -> NoReturn:
    """Print the first one or two lines of ``message`` as ``PROG: error: …`` and exit 2."""
    # a file's or an application's text may hold terminal escapes or control characters: never printed as such
    lines = [printable_text(line) for line in message.strip().splitlines()] or ["unusable input"]
    sys.stderr.write(f"{prog}: error: {lines[0]}\n")
    if len(lines) > 1:
        sys.stderr.write(f"  {lines[1]}\n")
    raise SystemExit(2)


def _run_guarded(prog: str, command: Callable[[Sequence[str]], int], argv: Sequence[str], interrupts: _InterruptFlag) -> int:
    """Run ``command(argv)``; turn exits, interrupts and unexpected errors into an exit status.

    stderr carries only the command's own lines: GEOS sets the floating-point "invalid" flag when a
    result is empty or degenerate (``shapely.intersection`` of disjoint parts in the shoreline
    elevation check, ``shapely.shortest_line`` or ``shapely.distance`` to an empty part), which numpy
    would print as "RuntimeWarning: invalid value encountered in …" for valid input. Those results
    are handled where they are used (an empty part is no part; a NaN distance is no distance), so the
    flag is ignored while the command runs.
    """
    try:
        import numpy as np  # lazy: inside the guard, so an interrupt while the libraries load is one line

        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"shapely(\.|$)")
            return int(command(argv))
    except SystemExit as exc:
        code = exc.code
        return int(code) if isinstance(code, int) else (0 if code is None else 2)
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 2
    except StormwaterError as exc:  # the project's own errors say what is wrong: no "this is a bug"
        try:
            fail(prog, str(exc) or type(exc).__name__)
        except SystemExit as done:
            return int(done.code) if isinstance(done.code, int) else 2
    except Exception as exc:  # the promise: never a traceback
        if interrupts.seen or _interrupted(exc):  # a Ctrl-C while a library loads comes back as its ImportError (numpy's)
            sys.stderr.write(f"{prog}: interrupted\n")
            return 2
        sys.stderr.write(f"{prog}: error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}\n")
        sys.stderr.write("  this is a bug or an unreadable input; please report it with the command you ran\n")
        return 2


def run_guarded(prog: str, command: Callable[[Sequence[str]], int], argv: Sequence[str]) -> int:
    """Run ``command(argv)``; turn exits, interrupts and unexpected errors into an exit status (see :func:`_run_guarded`)."""
    interrupts = _InterruptFlag.install()
    try:
        return _run_guarded(prog, command, argv, interrupts)
    finally:
        interrupts.restore()


class _InterruptFlag:
    """Remembers that Ctrl-C was pressed while a command runs: a C extension that catches the ``KeyboardInterrupt`` while it loads
    (numpy turns it into an ImportError) must still end as an interruption, not as "this is a bug"."""

    #: How often a Ctrl-C held back while a module loads is looked at again, seconds.
    RETRY_S: float = 0.01

    def __init__(self) -> None:
        self.seen = False
        self.previous: object = None
        self.previous_alarm: object = None

    @classmethod
    def install(cls) -> _InterruptFlag:
        flag = cls()
        if threading.current_thread() is not threading.main_thread():
            return flag

        # A KeyboardInterrupt raised inside a C extension's initialisation (numpy importing datetime) is printed
        # there with its traceback and turned into an ImportError: while a module loads, the interrupt is held
        # back and raised as soon as the loading is over.
        def raise_when_loaded(signum: int, frame: FrameType | None) -> None:
            flag.seen = True
            if _loading_module(frame) and hasattr(signal, "setitimer"):
                signal.setitimer(signal.ITIMER_REAL, cls.RETRY_S)
                return
            raise KeyboardInterrupt

        try:
            flag.previous = signal.signal(signal.SIGINT, raise_when_loaded)
            if hasattr(signal, "SIGALRM"):
                flag.previous_alarm = signal.signal(signal.SIGALRM, lambda s, f: raise_when_loaded(s, f) if flag.seen else None)
        except (ValueError, OSError):  # not the main interpreter: the default handling stays
            flag.previous = None
        return flag

    def restore(self) -> None:
        with contextlib.suppress(ValueError, OSError, TypeError, AttributeError):
            if self.previous_alarm is not None:
                signal.setitimer(signal.ITIMER_REAL, 0.0)
                signal.signal(signal.SIGALRM, self.previous_alarm)  # type: ignore[arg-type]
            if self.previous is not None:
                signal.signal(signal.SIGINT, self.previous)  # type: ignore[arg-type]


def _loading_module(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside the import machinery (a module is being loaded)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` was caused by a Ctrl-C (a ``KeyboardInterrupt`` in its cause or context chain)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False
