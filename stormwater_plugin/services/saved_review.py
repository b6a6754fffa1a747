"""A review kept in the QGIS project (or any JSON store): the review written out and read back.

:func:`save_review` stores a :class:`~.review.Review` as its own findings.json
document (decisions applied once, by the review) plus the geometry of the
result; :func:`load_review` (from :mod:`stormwater_plugin.core.saved_review`)
rebuilds the result, so a reopened project shows its review without running
the check again. The plugin depends on the service layer only.
"""

from __future__ import annotations

from typing import Mapping

from ..core.saved_review import load_review
from ..core.saved_review import save_review as _saved_document
from .findings_doc import findings_json
from .review import Review


def save_review(review: Review, *, extra: Mapping[str, object] | None = None) -> dict[str, object]:
    """The stored form of ``review``: its document with every geometry as WKT (working CRS), and ``extra`` keys.

    Parameters
    ----------
    review : Review
        The review shown (its document is written as it is, :func:`~.findings_doc.findings_json`: nothing is decided again).
    extra : mapping, optional
        Keys added to the stored form (the dock's working CRS as WKT).
    """
    out: dict[str, object] = _saved_document(review.result, findings_json(review.document), extra=extra)
    return out


__all__ = ["load_review", "save_review"]
