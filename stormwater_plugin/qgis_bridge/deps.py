"""Check that the Python packages the core needs are importable, without installing anything."""

from __future__ import annotations

import sys

#: How a user gets shapely 2 into QGIS's Python, per platform. Shown, never run. Every route keeps
#: QGIS's own numpy: ``--no-deps`` stops pip from pulling a numpy that QGIS's GDAL was not built for.
INSTALL_HINTS: dict[str, str] = {
    "win32": "Windows (OSGeo4W or the QGIS standalone installer): close QGIS, open the \"OSGeo4W Shell\" from the Start menu and run:\n"
             "    python -m pip install --no-deps \"shapely>=2,<2.3\"",
    "darwin": "macOS (QGIS.app): in Terminal run:\n"
              "    /Applications/QGIS.app/Contents/MacOS/bin/python3 -m pip install --user --no-deps \"shapely>=2,<2.3\"",
    "linux": "Debian 13, Ubuntu 24.04 and later: sudo apt install python3-shapely (version 2).\n"
             "Debian 12 and Ubuntu 22.04 (their python3-shapely is 1.8): run\n"
             "    python3 -m pip install --user --break-system-packages --no-deps \"shapely>=2,<2.3\"\n"
             "(--no-deps keeps QGIS's numpy; never upgrade numpy in QGIS's Python).",
}


def numpy_problem() -> str | None:
    """Why QGIS's GDAL cannot hand rasters to numpy, or ``None`` when it can.

    A numpy 2 installed by pip over a QGIS whose GDAL was built against numpy 1
    breaks ``osgeo.gdal_array`` ("_ARRAY_API not found"); every check that reads
    a DEM would then fail. This names the cause and the remedy once, at load.
    """
    try:
        import numpy
    except Exception as exc:  # pragma: no cover - QGIS always ships numpy
        return f"numpy could not be imported in QGIS's Python ({exc})."
    try:
        from osgeo import gdal_array  # noqa: F401
    except ImportError as exc:
        return (
            f"numpy {numpy.__version__} is installed in QGIS's Python, but QGIS's GDAL was built for another numpy "
            f"({exc}). It was probably installed by pip as a dependency. Remove that copy (for example "
            "python3 -m pip uninstall numpy, run as the user who installed it) so QGIS's own numpy is used, then restart QGIS."
        )
    except Exception:  # GDAL without its numpy bindings: the plugin reads rasters through QGIS anyway
        return None
    return None


def shapely_problem() -> str | None:
    """Why the core cannot run, or ``None`` when shapely 2 (or later) is importable.

    Returns
    -------
    str or None
        A message naming the package, the version found and how to install it
        on this platform.
    """
    try:
        import shapely
    except Exception as exc:  # ImportError, or a broken binary wheel
        found = f"it could not be imported ({exc})"
    else:
        version = getattr(shapely, "__version__", "0")
        try:
            major = int(version.split(".")[0])
        except ValueError:
            major = 0
        if major >= 2:
            return None
        found = f"version {version} is installed"
    platform = "win32" if sys.platform.startswith("win") else "darwin" if sys.platform == "darwin" else "linux"
    return (
        "Stormwater Site-Plan Review needs the Python package shapely, version 2 or later, "
        f"in QGIS's Python; {found}.\n\n{INSTALL_HINTS[platform]}\n\nThen restart QGIS."
    )
