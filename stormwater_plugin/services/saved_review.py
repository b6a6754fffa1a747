"""A review kept in the QGIS project (or any JSON store): the result written out and read back.

A re-export of :mod:`stormwater_plugin.core.saved_review` (the findings, features
and geometry of a check as JSON, so a reopened project shows its review without
running the check again), so that the plugin depends on the service layer only.
"""

from __future__ import annotations

from ..core.saved_review import load_review, save_review

__all__ = ["load_review", "save_review"]
