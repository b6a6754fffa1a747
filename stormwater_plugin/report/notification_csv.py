"""The neighbour-notification list as rows and as ``notification.csv``.

One row per owner and mailing address (the engine's owners table), with the
parcels they hold joined by ``"; "``. Parcel ids are the tax-map ``PRINT_KEY``
where the parcels layer has one, else the parcel's id.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..core.model import FeatureLayer
from ..core.printable import printable_changed, printable_text

CSV_COLUMNS: tuple[str, ...] = ("owner", "mailing_address", "parcel_address", "parcel_id", "distance_ft")

#: A cell a spreadsheet would run as a formula starts with one of these (after any spaces): "-2+3+cmd|' /C calc'!A0"
#: is a real NYS owner string. Tab and CR never reach a cell (printable_text makes them spaces), and are guarded all the same.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: The text fields of a row, passed through :func:`~stormwater_plugin.core.printable.printable_text`.
TEXT_FIELDS: tuple[str, ...] = ("owner", "mailing_address", "parcel_address", "parcel_id")


def _norm(s: str) -> str:
    return re.sub(r"[^0-9A-Z]+", " ", s.upper()).strip()


def print_keys(parcels: FeatureLayer | None) -> dict[str, str]:
    """Parcel id to ``PRINT_KEY`` (only where the attribute is present and not empty)."""
    out: dict[str, str] = {}
    if parcels is None:
        return out
    for pid, attrs in zip(parcels.ids, parcels.attrs):
        low = {str(k).lower(): v for k, v in attrs.items()}
        v = low.get("print_key")
        if v is not None and str(v).strip() and str(v).strip().lower() not in ("nan", "none", "null"):
            out[pid] = str(v).strip()
    return out


def notification_rows(notification: Mapping[str, Any], parcels: FeatureLayer | None = None) -> list[dict[str, Any]]:
    """Rows of the notification list, sorted by owner then mailing address.

    Parameters
    ----------
    notification : mapping
        The ``notification`` block of findings.json (its ``owners`` table).
    parcels : FeatureLayer or None
        The parcels layer, for ``PRINT_KEY``.

    Returns
    -------
    list of dict
        {owner, mailing_address, parcel_address, parcel_id, distance_ft,
        adjacent, parcels (list of ids)}; ``parcel_address`` and
        ``parcel_id`` are joined with ``"; "``.
    """
    keys = print_keys(parcels)
    rows: list[dict[str, Any]] = []
    for o in notification.get("owners", []) or []:
        ids = [str(p) for p in o.get("parcels", [])]
        rows.append(
            {
                "owner": str(o.get("owner") or ""),
                "mailing_address": str(o.get("mailing_address") or ""),
                "parcel_address": "; ".join(str(a) for a in o.get("parcel_addresses", []) if a),
                "parcel_id": "; ".join(keys.get(p, p) for p in ids),
                "distance_ft": float(o.get("distance_ft") or 0.0),
                "adjacent": bool(o.get("adjacent")),
                "parcels": ids,
            }
        )
    for r in rows:  # control characters out of every output the rows feed (CSV, labels, report), each change named
        r["cleaned"] = [f for f in TEXT_FIELDS if printable_changed(r[f])]
        for f in r["cleaned"]:
            r[f] = printable_text(r[f])
    rows.sort(key=lambda r: (_norm(r["owner"]) or "~", r["owner"].casefold(), _norm(r["mailing_address"])))
    return rows


def cleaned_warning(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """The warning naming the owners whose text held control characters (a NUL, Word's line break, a terminal escape), or ``None``."""
    hit = [f"{r['owner'] or '(no owner)'} ({', '.join(r['cleaned'])})" for r in rows if r.get("cleaned")]
    if not hit:
        return None
    return (f"notification list: control characters removed from {len(hit)} owner row(s): {'; '.join(hit[:10])}"
            f"{' …' if len(hit) > 10 else ''}; check these names and addresses against the tax roll")


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.1f}"
    s = printable_text(v)
    # A spreadsheet would run a cell starting with "=" (after spaces too) as a formula; a leading apostrophe keeps it text.
    return "'" + s if s.lstrip(" ").startswith(_FORMULA_START) else s


def csv_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The CSV text (header and one line per row, ``\\r\\n`` line ends as RFC 4180 has them)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow([_cell(r[c]) for c in CSV_COLUMNS])
    return buf.getvalue()


def write_csv(rows: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """Write ``notification.csv`` in UTF-8 with a byte-order mark, so spreadsheets keep accented names."""
    path.write_text(csv_text(rows), encoding="utf-8-sig", newline="")
    return path
