"""A TrueType font with the glyphs owners' names need (DejaVu Sans), registered with reportlab once.

Looked for in Debian's ``fonts-dejavu-core`` first, then in matplotlib's own
data folder (which ships DejaVu Sans), so the PDF never falls back to a font
that drops "ë" or "ñ".
"""

from __future__ import annotations

from pathlib import Path

from ..core.errors import StormwaterError

_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF", "/usr/share/fonts/dejavu", "/Library/Fonts", "C:/Windows/Fonts")
REGULAR = "DejaVuSans"
BOLD = "DejaVuSans-Bold"
OBLIQUE = "DejaVuSans-Oblique"


class FontMissing(RuntimeError, StormwaterError):
    """No DejaVu Sans TTF was found."""


def find_font(name: str) -> Path:
    """Path of ``name``.ttf (e.g. ``DejaVuSans``)."""
    dirs = [Path(d) for d in _DIRS]
    try:
        import matplotlib  # optional: only its font folder, when the system has no DejaVu

        dirs.append(Path(matplotlib.get_data_path()) / "fonts" / "ttf")
    except Exception:  # pragma: no cover - matplotlib is a dependency of the report
        pass
    for d in dirs:
        p = d / f"{name}.ttf"
        if p.is_file():
            return p
    raise FontMissing(f"font {name}.ttf not found; install it (Debian: apt-get install fonts-dejavu-core)")


def register() -> tuple[str, str, str]:
    """Register DejaVu Sans (regular, bold, oblique) with reportlab; returns their names."""
    # lazy: report/package.py imports this module before the report libraries, to catch FontMissing
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    if REGULAR not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(REGULAR, str(find_font(REGULAR))))
        pdfmetrics.registerFont(TTFont(BOLD, str(find_font(BOLD))))
        pdfmetrics.registerFont(TTFont(OBLIQUE, str(find_font(OBLIQUE))))
        addMapping(REGULAR, 0, 0, REGULAR)
        addMapping(REGULAR, 1, 0, BOLD)
        addMapping(REGULAR, 0, 1, OBLIQUE)
        addMapping(REGULAR, 1, 1, BOLD)
    return REGULAR, BOLD, OBLIQUE
