"""The review report and the neighbour-notification package.

``model.build_report_model`` turns a check's results into one plain dictionary
(the *report model*); ``html`` and ``pdf`` render it, ``maps`` draws its
figures with matplotlib, ``notification_csv`` and ``labels`` write the
notification package. Nothing here imports QGIS, Qt or GDAL, so the plugin can
reuse it; ``package.write_report_package`` is the one call the CLI makes.
"""

from __future__ import annotations

__all__ = ["build_report_model", "write_report_package"]


def __getattr__(name: str):  # lazy: importing the package must not pull in matplotlib or reportlab
    if name == "build_report_model":
        # lazy: see __getattr__
        from .model import build_report_model

        return build_report_model
    if name == "write_report_package":
        # lazy: see __getattr__
        from .package import write_report_package

        return write_report_package
    raise AttributeError(name)
