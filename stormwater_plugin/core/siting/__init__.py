"""Siting aid: where an infiltration device may go (the envelope) and how far a failing one must move.

Pure numpy and shapely, like the rest of the core. See ``docs/siting.md``.
"""

from __future__ import annotations

from .envelope import DesignZone, ExcludedZone, SharedBuilds, SitingEnvelope, SitingError, applicable_rules, build_envelope
from .geometry import covering_buffer
from .moves import Verify, search_moves

__all__ = [
    "DesignZone",
    "ExcludedZone",
    "SharedBuilds",
    "SitingEnvelope",
    "SitingError",
    "applicable_rules",
    "build_envelope",
    "Verify",
    "covering_buffer",
    "search_moves",
]
