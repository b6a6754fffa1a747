"""The budget for reading one layer: a layer that never ends stops the check with one line naming it.

The bounds live here, in one place (:data:`LAYER_READ_FEATURES`, :data:`LAYER_READ_SECONDS`, overridden by the
environment), with the words of the error; the file reader (``headless.vectors``, ``headless.context_reader``)
guards every layer it reads with :meth:`ReadBudget.guard`, and counts an SQL view first (``headless.layer_budget``).
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Iterable, Iterator, TypeVar

from .input_errors import InputError

#: A feature as the backend reads it (fiona's, or the feature ids of a count).
FeatureT = TypeVar("FeatureT")

#: The budget for reading one layer: a layer that never ends (an SQL view over an endless recursive query, a
#: service that keeps paging) stops the run with one line naming it rather than never returning. Both bounds are far beyond
#: what any site needs: a plan has hundreds of features, and a county-scale context layer is read through a spatial filter
#: of the site plus the pack's reach (a few thousand features). ``STORMWATER_LAYER_READ_FEATURES`` and
#: ``STORMWATER_LAYER_READ_SECONDS`` override them (a test, or a town whose layer really is larger).
LAYER_READ_FEATURES: int = 2_000_000


#: Wall time reading one layer may take at most, seconds.
LAYER_READ_SECONDS: float = 120.0


FEATURES_ENV = "STORMWATER_LAYER_READ_FEATURES"


SECONDS_ENV = "STORMWATER_LAYER_READ_SECONDS"


class LayerBudgetError(InputError):
    """A layer did not finish reading within :class:`ReadBudget` (one line naming the role and the source)."""


@dataclass(frozen=True)
class ReadBudget:
    """How many features, and how many seconds, reading one layer may take (:data:`LAYER_READ_FEATURES`, :data:`LAYER_READ_SECONDS`)."""

    features: int = LAYER_READ_FEATURES
    seconds: float = LAYER_READ_SECONDS

    @classmethod
    def current(cls) -> ReadBudget:
        """The budget in force: the defaults, or the environment's overrides (:class:`InputError` for one that is not a positive number)."""
        features, seconds = LAYER_READ_FEATURES, LAYER_READ_SECONDS
        for name in (FEATURES_ENV, SECONDS_ENV):
            text = os.environ.get(name, "").strip()
            if not text:
                continue
            try:
                value = float(text)
            except ValueError:
                value = float("nan")
            if not (math.isfinite(value) and value > 0):
                raise InputError(f"{name}={text}: give a positive number (the read budget of one layer)")
            if name == FEATURES_ENV:
                features = max(1, int(value))
            else:
                seconds = value
        return cls(features, seconds)

    def exceeded(self, role: str, where: str, what: str) -> LayerBudgetError:
        """The error for layer ``role`` read from ``where`` that ran over the budget: ``what`` says how."""
        return LayerBudgetError(
            f"layer '{role}' ({where}) did not finish reading within {self.seconds:g} s / {self.features:,} features: {what}; "
            "give the features the site needs as a file or table (e.g. ogr2ogr -spat XMIN YMIN XMAX YMAX) with --layer"
        )

    def guard(self, features: Iterable[FeatureT], role: str, where: str, start: float | None = None) -> Iterator[FeatureT]:
        """``features`` one by one, raising :class:`LayerBudgetError` past the budget (``start``: when reading began, ``time.monotonic``)."""
        deadline = (time.monotonic() if start is None else start) + self.seconds
        n = 0
        for feat in features:
            n += 1
            if n > self.features:
                raise self.exceeded(role, where, f"more than {self.features:,} features")
            if time.monotonic() > deadline:
                raise self.exceeded(role, where, f"still reading after {self.seconds:g} s ({n - 1:,} features read)")
            yield feat
