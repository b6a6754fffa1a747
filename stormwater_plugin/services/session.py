"""The dock's review session: what is on screen, in plain Python, observed by the widgets.

One :class:`ReviewSession` holds the result being reviewed, the snapshot it
was computed from, its suggested moves, its :class:`~.review.Review` (the
findings.json document with the decisions), the comparison with an earlier
review and the *generation* of the project. Widgets subscribe to it and redraw
when it says what changed; background tasks carry a :class:`Ticket` taken when
they start, so a result that arrives after the project was cleared, or moves
computed for an earlier result, are recognised and dropped (no attributes are
stuck onto the task objects).

QGIS-free: the snapshot is held as it is (any object with ``inputs``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Protocol, Sequence

from ..core.model import CheckResult, SiteInputs
from ..core.overrides import Override
from ..core.siting import SitingEnvelope
from .review import Move, Review, moves_from_dicts, review_of


class SiteSnapshot(Protocol):
    """What the session reads of the snapshot a result was computed from (the plugin's ``qgis_bridge`` snapshot is one)."""

    @property
    def inputs(self) -> SiteInputs: ...


#: What a listener is told changed.
CLEARED = "cleared"
RESULT = "result"
REVIEW = "review"
MOVES = "moves"
COMPARISON = "comparison"


@dataclass(frozen=True)
class Ticket:
    """Taken when a background task starts: the project's generation and the result it works on."""

    generation: int
    result: CheckResult | None = None


class ReviewSession:
    """The state of one review in the dock.

    Attributes
    ----------
    result : CheckResult or None
    snap : object or None
        The snapshot (``qgis_bridge.snapshot.Snapshot``) the result was computed from.
    moves : tuple of Move
    review : Review or None
        The result's findings.json document with the decisions, moves and comparison.
    comparison : dict or None
        The last comparison with an earlier review.
    previous_doc : dict or None
        The previous review kept with the project.
    envelope : object or None
        The last siting envelope.
    generation : int
        Incremented when the project is cleared or closed.
    """

    def __init__(self) -> None:
        self.result: CheckResult | None = None
        # The front end's snapshot (the dock's qgis_bridge Snapshot), read here only for its ``inputs`` (SiteSnapshot).
        self.snap: SiteSnapshot | None = None
        self.moves: tuple[Move, ...] = ()
        self.review: Review | None = None
        self.comparison: dict[str, object] | None = None
        self.previous_doc: dict[str, object] | None = None
        self.envelope: SitingEnvelope | None = None
        self.generation = 0
        self._listeners: list[Callable[[str], None]] = []

    # -- observers ----------------------------------------------------------------

    def subscribe(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(what)`` after each change (``what``: one of CLEARED, RESULT, REVIEW, MOVES, COMPARISON)."""
        self._listeners.append(listener)

    def _notify(self, what: str) -> None:
        for listener in list(self._listeners):
            listener(what)

    # -- tickets ------------------------------------------------------------------

    def ticket(self, for_result: bool = False) -> Ticket:
        """A ticket for a task starting now (``for_result``: it works on the current result)."""
        return Ticket(self.generation, self.result if for_result else None)

    def is_current(self, ticket: Ticket) -> bool:
        """Whether the project is still the one the task started in (and, for a result's task, the result still shown)."""
        if ticket.generation != self.generation:
            return False
        return ticket.result is None or ticket.result is self.result

    # -- changes ------------------------------------------------------------------

    @property
    def doc(self) -> dict[str, object] | None:
        """The findings.json document of the current review (``None`` before a result)."""
        return self.review.doc if self.review is not None else None

    def clear(self) -> None:
        """The project was closed or cleared: nothing shown belongs anywhere; running tasks' tickets lapse."""
        self.generation += 1
        self.result = None
        self.snap = None
        self.moves = ()
        self.review = None
        self.comparison = None
        self.previous_doc = None
        self.envelope = None
        self._notify(CLEARED)

    def set_result(self, result: CheckResult, snap: SiteSnapshot | None, overrides: Sequence[Override], inputs: Mapping[str, object] | None = None,
                   moves: Iterable[Mapping[str, object] | Move] = (), review: Review | None = None) -> Review:
        """A new result to review (its moves, if already known).

        ``review`` is the result's :class:`Review` when it was built already
        (in the check's task, :func:`~.review.check`): it is then only given the
        decisions; otherwise it is built here, once (:func:`~.review.review_of`).
        """
        self.result = result
        self.snap = snap
        self.moves = moves_from_dicts(moves)
        self.envelope = None
        if review is None or review.result is not result:
            crs_name = self.snap.inputs.crs_name if self.snap is not None else ""
            review = review_of(result, crs_name=crs_name, inputs=inputs, moves=self.moves)
        else:
            if inputs is not None:
                review = review.with_inputs(inputs)
            review = review.with_moves(self.moves)
        self.review = review.decided(overrides, comparison=self.comparison)
        self._notify(RESULT)
        return self.review

    def set_moves(self, moves: Iterable[Mapping[str, object] | Move], overrides: Sequence[Override], inputs: Mapping[str, object] | None = None) -> None:
        """The moves suggested for the current result."""
        self.moves = moves_from_dicts(moves)
        if self.review is not None:
            review = self.review.with_moves(self.moves)
            if inputs is not None:
                review = review.with_inputs(inputs)
            self.review = review.decided(overrides)
        self._notify(MOVES)

    def rebuild(self, overrides: Sequence[Override], inputs: Mapping[str, object] | None = None, *, notify: bool = True) -> Review:
        """The review of the current result with these decisions (the comparison kept); the result is not serialised again."""
        if self.result is None or self.review is None:
            raise ValueError("no result to review")
        review = self.review.with_inputs(inputs) if inputs is not None else self.review
        self.review = review.decided(overrides)
        if notify:
            self._notify(REVIEW)
        return self.review

    def for_report(self, overrides: Sequence[Override], inputs: Mapping[str, object] | None) -> Review:
        """The current review as the report writes it: these decisions and ``inputs`` (what was read) in its document."""
        if self.review is None:
            raise ValueError("no result to review")
        return self.review.with_inputs(inputs).decided(overrides)

    def set_comparison(self, comparison: dict[str, object] | None) -> None:
        """The comparison with an earlier review (``None`` clears it), shown with the current review."""
        self.comparison = comparison
        if self.review is not None:  # the review's own API: its document is never edited in place
            self.review = self.review.decided(self.review.overrides, comparison=comparison)
        self._notify(COMPARISON)


__all__ = ["ReviewSession", "Ticket", "CLEARED", "RESULT", "REVIEW", "MOVES", "COMPARISON"]
