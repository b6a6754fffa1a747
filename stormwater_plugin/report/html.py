"""The HTML report: one self-contained file (figures embedded as PNG data URIs), from a jinja2 template.

Autoescaping is on for every value: an owner named ``<script>`` prints as
text, in element content and in attributes alike.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Mapping

# jinja2 at module top: this module is imported only when the report is written (report/package.py)
import jinja2

from ..core.limits import value_text

TEMPLATES = Path(__file__).resolve().parent / "templates"


def environment() -> Any:
    """The jinja2 environment: the package's templates, autoescape on for everything, undefined names fail loudly."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["ft"] = lambda v, nd=1: "—" if v is None else f"{float(v):.{nd}f} ft"
    env.filters["sqft"] = lambda v: "—" if v is None else value_text(float(v), "area_sqft")  # the precision the class was decided at
    return env


def render_html(model: Mapping[str, Any], figures: Mapping[str, bytes]) -> str:
    """Render the report model to HTML text.

    Parameters
    ----------
    model : mapping
        From :func:`stormwater_plugin.report.model.build_report_model`.
    figures : mapping of figure id to PNG bytes
        From :func:`stormwater_plugin.report.maps.render_figures`; a missing
        figure is replaced by a note.
    """
    images = {k: "data:image/png;base64," + base64.b64encode(v).decode("ascii") for k, v in figures.items()}
    return environment().get_template("report.html.j2").render(m=model, images=images)


def write_html(model: Mapping[str, Any], figures: Mapping[str, bytes], path: Path) -> Path:
    path.write_text(render_html(model, figures), encoding="utf-8")
    return path
