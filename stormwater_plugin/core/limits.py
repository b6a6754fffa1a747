"""One comparison policy for every limit of the texts: the value that prints is the value that decides.

Each kind of quantity has a stated *decision precision* (:data:`DECIMALS`), far
below what a site plan can show and the precision its findings print. A value
is rounded to that precision first; only the rounded value is compared with the
limit, so a value that prints as the limit *is* at the limit, and the words of
the text decide what happens there (:data:`RELATION_WORDS`): "up to", "not
more than", "within" include the limit; "less than", "more than" exclude it;
"at least", "a minimum of", "or greater" include it.

==============  ============  ===========================================================
quantity        precision     why that small and no smaller
==============  ============  ===========================================================
distance_ft     0.01 ft       survey-grade plans hold ±0.1 ft; drawn plans ±1 ft or worse
depth_ft        0.01 ft       elevations are given to 0.01 ft at best (test-pit logs 0.1 ft)
area_sqft       0.1 sq ft     a 0.01 ft error along a 100 ft side is already 1 sq ft
volume_gal      1 gal         1.5 gal per sq ft × 0.1 sq ft is 0.15 gal; storage is sized in gallons
slope_pct       0.1 %         a 0.1 ft DEM error over 100 ft is 0.1 %
time_days       0.1 day       drain times are designed in days and hours (0.1 day = 2.4 h)
==============  ============  ===========================================================

Values are ground values: the caller measures on the ellipsoid (grid lengths
divided by the scale factor, :class:`~stormwater_plugin.core.checks.context.CheckContext`'s
``unit_to_ft``), so the law's measure is what is rounded and compared.
"""

from __future__ import annotations

import functools
import math
import operator
from decimal import ROUND_HALF_UP, Decimal
from typing import Callable, Literal, get_args

from .errors import StormwaterError

#: A kind of quantity the texts set limits on (the unit is part of the name).
Quantity = Literal["distance_ft", "depth_ft", "area_sqft", "volume_gal", "slope_pct", "time_days"]
#: An order relation between a value and a limit, as the value must stand to the limit for the words to hold.
Relation = Literal["<=", "<", ">=", ">"]

#: Decimals of each quantity's decision precision (``0.01`` ft for distances ...): see the module docstring.
DECIMALS: dict[str, int] = {
    "distance_ft": 2,
    "depth_ft": 2,
    "area_sqft": 1,
    "volume_gal": 0,
    "slope_pct": 1,
    "time_days": 1,
}

#: What each quantity prints after its number.
UNITS: dict[str, str] = {
    "distance_ft": "ft",
    "depth_ft": "ft",
    "area_sqft": "sq ft",
    "volume_gal": "gal",
    "slope_pct": "%",
    "time_days": "days",
}

#: The texts' words for a relation of a value to a limit (lower case, single spaces), and the relation each means.
RELATION_WORDS: dict[str, Relation] = {
    "up to": "<=",
    "not more than": "<=",
    "no more than": "<=",
    "not exceed": "<=",
    "shall not exceed": "<=",
    "at most": "<=",
    "within": "<=",
    "or less": "<=",
    "equal to or less than": "<=",
    "less than": "<",
    "under": "<",
    "below": "<",
    "at least": ">=",
    "a minimum of": ">=",
    "minimum of": ">=",
    "not less than": ">=",
    "no less than": ">=",
    "or greater": ">=",
    "or more": ">=",
    "equal to or greater than": ">=",
    "more than": ">",
    "greater than": ">",
    "over": ">",
    "exceeding": ">",
}

_OPS: dict[str, Callable[[float, float], bool]] = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt}
#: The relation that holds exactly when the given one does not.
NEGATION: dict[Relation, Relation] = {"<=": ">", "<": ">=", ">=": "<", ">": "<="}


class LimitError(ValueError, StormwaterError):
    """A quantity or a relation the comparison policy does not know (a pack or programming error)."""


def relation(words: str) -> Relation:
    """The relation the text's ``words`` mean (``"up to"`` → ``<=``); a relation symbol is returned as it is.

    Raises
    ------
    LimitError
        When the words are not in :data:`RELATION_WORDS`.
    """
    key = " ".join(str(words).lower().split())
    if key in _OPS:
        return key  # type: ignore[return-value]
    try:
        return RELATION_WORDS[key]
    except KeyError:
        raise LimitError(f"no relation is known for the words {words!r}; use one of {sorted(RELATION_WORDS)}") from None


def precision(quantity: Quantity) -> float:
    """The decision precision of ``quantity`` in its unit (``0.01`` for ``distance_ft``)."""
    return 10.0 ** -_decimals(quantity)


def _decimals(quantity: str) -> int:
    try:
        return DECIMALS[quantity]
    except KeyError:
        raise LimitError(f"unknown quantity {quantity!r}; one of {sorted(DECIMALS)}") from None


def decided(value: float, quantity: Quantity) -> float:
    """``value`` at the decision precision of ``quantity``: the number that is compared and printed.

    Infinite and NaN values are returned as they are (a comparison with NaN is false).
    """
    try:  # the same value of the same quantity, decided again (a rule's limit, a distance kept from the last check)
        return _decided_kept(value, quantity)
    except TypeError:  # an unhashable value (a 0-d array): decided as it is
        return _decided(value, quantity)


@functools.lru_cache(maxsize=4096)
def _decided_kept(value: float, quantity: Quantity) -> float:
    """:func:`_decided`, kept by ``(value, quantity)``: values equal as keys (``1``, ``1.0``, ``True``; ``-0.0``, ``0.0``) have one
    ``float(value)`` and so one result; a NaN is found only as the same object, and gives NaN."""
    return _decided(value, quantity)


def _decided(value: float, quantity: Quantity) -> float:
    if not math.isfinite(value):
        return float(value)
    # Round in two steps: first to six decimals beyond the precision (floating-point noise from the coordinates, 19.994999999999997
    # for 19.995, goes), then half away from zero in decimal, so a value printed at the precision reads as it is decided.
    d = _decimals(quantity)
    shown = Decimal(repr(round(float(value), d + 6))).quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP)
    return float(shown) + 0.0  # no negative zero


def compare(value: float, limit: float, quantity: Quantity, rel: Relation | str) -> bool:
    """Whether ``value`` stands in relation ``rel`` to ``limit``, both taken at the precision of ``quantity``.

    Parameters
    ----------
    value : float
        The measured (ground) value, in the unit of ``quantity``.
    limit : float
        The limit of the text, in the same unit (a product such as 1.5 gal × area is rounded too).
    quantity : Quantity
        The kind of quantity (:data:`DECIMALS`).
    rel : Relation or str
        ``<=``, ``<``, ``>=``, ``>``, or the text's words (``"not more than"``, :func:`relation`).

    Returns
    -------
    bool
        ``decided(value) rel decided(limit)``; false when ``value`` is NaN.

    Examples
    --------
    >>> compare(1000.0004, 1000, "area_sqft", "not more than")
    True
    >>> compare(19.996, 20, "distance_ft", "a minimum of")
    True
    >>> compare(19.994, 20, "distance_ft", "a minimum of")
    False
    """
    return _OPS[relation(rel)](decided(value, quantity), decided(limit, quantity))


def at_least_threshold(limit: float, quantity: Quantity, rel: Relation | str) -> float:
    """The raw value ``t`` with ``compare(v, limit, quantity, rel) == (v >= t)`` for every float ``v``, for ``>=`` or ``>``.

    For arrays (a slope map's cells): a value rounds to ``limit`` or more when it is at least
    ``limit - precision/2`` (half rounds up), and to more than ``limit`` when it is at least
    ``limit + precision/2``. ``t`` is that edge to the last bit of a float, as :func:`decided` rounds
    (its six-decimal pre-rounding puts the edge of 15 % at 14.94999995 %, a hair under 14.95 %).

    Raises
    ------
    LimitError
        For ``<=`` or ``<`` (use the negation).
    """
    r = relation(rel)
    if r not in (">=", ">"):
        raise LimitError(f"at_least_threshold takes >= or >, not {r}")
    lim = decided(limit, quantity)
    # "more than 15.0" at 0.1 is "15.1 or more": every decided value lies on the precision's grid
    target = lim if r == ">=" else decided(lim + precision(quantity), quantity)
    return _edge(target, quantity)


@functools.lru_cache(maxsize=256)
def _edge(target: float, quantity: str) -> float:
    """The smallest float that :func:`decided` puts at ``target`` or more (``decided`` never falls as its value grows)."""
    half = precision(quantity) / 2.0  # type: ignore[arg-type]
    if not math.isfinite(target):
        return target - half
    slack = 10.0 ** -(_decimals(quantity) + 5)  # wider than the six-decimal pre-rounding's reach
    lo, hi = target - half - slack, target - half + slack
    while True:  # bisection on floats: about 30 steps from twice the slack down to one unit in the last place
        mid = lo + (hi - lo) / 2.0
        if not lo < mid < hi:
            return hi
        if decided(mid, quantity) >= target:  # type: ignore[arg-type]
            hi = mid
        else:
            lo = mid


def margin(value: float, limit: float, quantity: Quantity) -> float:
    """``decided(value) - decided(limit)``, at the precision (what a "short by" or "over by" prints)."""
    return decided(decided(value, quantity) - decided(limit, quantity), quantity)


def number_text(value: float, quantity: Quantity) -> str:
    """``value`` as a finding prints it: at the decision precision, thousands separated (``1,000.0``)."""
    return f"{decided(value, quantity):,.{_decimals(quantity)}f}"


def value_text(value: float, quantity: Quantity) -> str:
    """:func:`number_text` with the unit: ``1,000.0 sq ft``, ``19.99 ft``."""
    return f"{number_text(value, quantity)} {UNITS[quantity]}"


QUANTITIES: tuple[str, ...] = get_args(Quantity)

__all__ = [
    "DECIMALS",
    "NEGATION",
    "QUANTITIES",
    "RELATION_WORDS",
    "UNITS",
    "LimitError",
    "at_least_threshold",
    "Quantity",
    "Relation",
    "compare",
    "decided",
    "margin",
    "number_text",
    "precision",
    "relation",
    "value_text",
]
