"""The reviewer's decisions as the front ends see them: the key each finding is decided under, and the decision errors.

A re-export of :mod:`stormwater_plugin.core.overrides` (decisions are applied to
the findings document once, in :func:`stormwater_plugin.services.review.check`),
so that the front ends depend on the service layer only.
"""

from __future__ import annotations

from ..core.overrides import (
    Override,
    OverrideError,
    dumps_overrides,
    finding_keys,
    loads_overrides,
    make_override,
    remove_override,
    set_override,
)

__all__ = ["Override", "OverrideError", "dumps_overrides", "finding_keys", "loads_overrides", "make_override", "remove_override", "set_override"]
