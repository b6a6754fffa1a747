"""The error of a site's unusable input: raised by the reading policy in services and by the file reader that fetches for it."""

from __future__ import annotations

from ..core.errors import StormwaterError


class InputError(StormwaterError):
    """Unusable input; the message says what and where, and what to do."""


def short_reason(exc: BaseException) -> str:
    """The first line of a library's error, at most 160 characters (its type's name when it says nothing), for a one-line message."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:160]
