"""How far a read of a site's layers has gone, as a fraction for a progress bar: each layer weighs its features."""

from __future__ import annotations

from typing import Callable, Iterable


class ReadProgress:
    """The fraction of a read done, reported once per layer as it is fetched.

    Parameters
    ----------
    counts : iterable of int
        The features each layer to read declares; a layer of none weighs as one (it still takes a request).
    report : callable, optional
        Given the fraction done (0 to 1) after each layer.
    """

    def __init__(self, counts: Iterable[int], report: Callable[[float], None] | None) -> None:
        self._total, self._done = float(sum(max(c, 1) for c in counts)) or 1.0, 0.0
        self._report = report
        self._seen: set[str] = set()

    def fetched(self, key: str, count: int) -> None:
        """Layer ``key`` (of ``count`` features) is read: counted the first time only (a layer fetched again adds nothing)."""
        if key in self._seen:
            return
        self._seen.add(key)
        self._done += max(count, 1)
        if self._report is not None:
            self._report(min(self._done / self._total, 1.0))


__all__ = ["ReadProgress"]
