"""How every command ends on bad input: one or two lines on stderr and exit 2, never a traceback."""

from __future__ import annotations

import sys
import warnings
from typing import Callable, NoReturn, Sequence

from ..core.errors import StormwaterError


class InputError(StormwaterError):
    """Unusable input; the message says what and where, and what to do."""


def fail(prog: str, message: str) -> NoReturn:
    """Print the first one or two lines of ``message`` as ``PROG: error: …`` and exit 2."""
    lines = message.strip().splitlines() or ["unusable input"]
    sys.stderr.write(f"{prog}: error: {lines[0]}\n")
    if len(lines) > 1:
        sys.stderr.write(f"  {lines[1]}\n")
    raise SystemExit(2)


def run_guarded(prog: str, command: Callable[[Sequence[str]], int], argv: Sequence[str]) -> int:
    """Run ``command(argv)``; turn exits, interrupts and unexpected errors into an exit status.

    stderr carries only the command's own lines: GEOS sets the floating-point "invalid" flag when a
    result is empty or degenerate (``shapely.intersection`` of disjoint parts in the shoreline
    elevation check, ``shapely.shortest_line`` or ``shapely.distance`` to an empty part), which numpy
    would print as "RuntimeWarning: invalid value encountered in …" for valid input. Those results
    are handled where they are used (an empty part is no part; a NaN distance is no distance), so the
    flag is ignored while the command runs.
    """
    try:
        import numpy as np  # lazy: inside the guard, so an interrupt while the libraries load is one line (issue 35)

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
        sys.stderr.write(f"{prog}: error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}\n")
        sys.stderr.write("  this is a bug or an unreadable input; please report it with the command you ran\n")
        return 2
