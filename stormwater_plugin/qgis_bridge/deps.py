"""Check that the Python packages the core needs are importable, without installing anything."""

from __future__ import annotations

import ctypes
import importlib.metadata
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path

#: QGIS's Python folder of the user's profile when QGIS cannot be asked (Linux, profile "default").
DEFAULT_PROFILE_PYTHON = "~/.local/share/QGIS/QGIS3/profiles/default/python"

#: How a user gets shapely 2 into QGIS's Python, per platform. Shown, never run. No route needs pip's
#: --break-system-packages: Debian's own package where it is shapely 2, else pip's --target into the profile's
#: python folder, which QGIS puts first on its sys.path (for QGIS alone: no system package is touched, and pip
#: allows --target under Debian's "externally managed" Python). Every pip route keeps QGIS's own numpy
#: (``--no-deps``). Debian 12 was tried here (QGIS 3.22, GEOS 3.11.1): shapely 2.0.7's wheel (GEOS 3.11.4) in the
#: profile's folder runs the check in qgis_process; 2.1.2 and 2.2.0 crash QGIS (see :func:`geos_conflict`).
#: Windows and macOS were not tried (no such system here); they bind each library's symbols to the library it
#: was linked with, so the clash of two GEOS in one process seen on Linux is not expected there.
INSTALL_HINTS: dict[str, str] = {
    "win32": "Windows (OSGeo4W or the QGIS standalone installer; untested): close QGIS, open the \"OSGeo4W Shell\" from the Start menu and run:\n"
             "    python -m pip install --no-deps \"shapely>=2,<2.3\"",
    "darwin": "macOS (QGIS.app; untested): in Terminal run:\n"
              "    /Applications/QGIS.app/Contents/MacOS/bin/python3 -m pip install --user --no-deps \"shapely>=2,<2.3\"",
    "linux": "Debian 13, Debian unstable, Ubuntu 24.04 and later: sudo apt install python3-shapely (version 2, built on the system's GEOS).\n"
             "Debian 12 and Ubuntu 22.04 (their python3-shapely is 1.8; QGIS's GEOS is 3.11): install shapely 2.0 for QGIS alone, "
             "into your QGIS profile's python folder (QGIS reads it first; nothing of the system changes):\n"
             "    sudo apt install python3-pip\n"
             "    python3 -m pip install --no-deps --upgrade --target {profile_python} \"shapely>=2,<2.1\"\n"
             "(shapely 2.0 carries GEOS 3.11 like QGIS; 2.1 and 2.2 carry a newer GEOS and crash QGIS; --no-deps keeps "
             "QGIS's numpy: never upgrade numpy in QGIS's Python).",
}

#: GEOS (major, minor) a shapely wheel from PyPI carries, to the shapely releases carrying it (Linux wheels).
WHEEL_GEOS: dict[tuple[int, int], str] = {(3, 11): ">=2,<2.1", (3, 13): ">=2.1,<2.2", (3, 14): ">=2.2,<2.3"}

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True)
class ShapelyFacts:
    """What is known about the shapely QGIS's Python would import, read from files (nothing is called).

    Attributes
    ----------
    version : str or None
        shapely's version (``None``: not installed).
    location : str
        The folder it is imported from.
    bundled_geos : tuple of int or None
        (major, minor, patch) of the GEOS library its wheel carries (a ``shapely.libs`` or
        ``shapely/.dylibs`` folder); ``None`` when shapely uses the system's GEOS.
    """

    version: str | None
    location: str = ""
    bundled_geos: tuple[int, int, int] | None = None


def _parse_version(text: str) -> tuple[int, int, int] | None:
    m = _VERSION.search(text)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def shapely_facts(package: Path | None = None, version: str | None = None) -> ShapelyFacts:
    """Locate shapely without importing it and read the GEOS its wheel carries from the library's file name.

    Parameters
    ----------
    package : Path, optional
        The ``shapely`` package folder to read (default: the one Python would import).
    version : str, optional
        Its version (default: from the installed distribution's metadata).
    """
    if package is None:
        try:
            spec = importlib.util.find_spec("shapely")
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.origin:
            return ShapelyFacts(None)
        package = Path(spec.origin).parent
        try:
            version = importlib.metadata.version("shapely")
        except importlib.metadata.PackageNotFoundError:
            version = None
    bundled: tuple[int, int, int] | None = None
    for folder in (package.parent / "shapely.libs", package / ".dylibs"):
        if not folder.is_dir():
            continue
        # libgeos-<hash>.so.3.14.1 (auditwheel), libgeos.3.14.1.dylib (delocate); the C API library has its own numbers
        for lib in sorted(folder.iterdir()):
            name = lib.name.lower()
            if name.startswith(("libgeos-", "libgeos.", "geos-", "geos.")) and not name.startswith(("libgeos_c", "geos_c")):
                bundled = _parse_version(name) or bundled
        if bundled is None and any("geos" in lib.name.lower() for lib in folder.iterdir()):
            bundled = (0, 0, 0)  # a GEOS of unknown version: treated as different from QGIS's
    return ShapelyFacts(version, str(package), bundled)


def geos_in_global_namespace() -> bool:
    """Whether a GEOS C library is already loaded for the whole process (as the QGIS application and qgis_process do).

    A Python interpreter that imports ``qgis.core`` loads QGIS's GEOS privately;
    the QGIS executables link it, so every library loaded later resolves GEOS's
    symbols there first. Looked up with ``dlsym``; nothing is called.
    """
    if sys.platform.startswith("win") or sys.platform == "darwin":
        return False
    try:
        return hasattr(ctypes.CDLL(None), "GEOSversion")
    except OSError:
        return False


def geos_conflict(facts: ShapelyFacts, qgis_geos: tuple[int, int, int] | None, platform: str, global_geos: bool) -> bool:
    """Whether this shapely would crash the QGIS process on its first geometry call.

    On Linux the GEOS a shapely wheel carries resolves GEOS's C++ symbols to the
    GEOS QGIS loaded first; a different minor release has another layout and
    the first prepared-geometry call dies (shapely 2.1.2 with GEOS 3.13 and 2.2.0
    with GEOS 3.14 beside QGIS 3.22's GEOS 3.11.1 crash; 2.0.7 with GEOS 3.11.4
    runs). Same major and minor release: compatible. Shapely built on the
    system's GEOS: the same library. Windows and macOS: not expected (symbols are
    bound per library), untested.

    Parameters
    ----------
    facts : ShapelyFacts
    qgis_geos : tuple of int or None
        QGIS's GEOS (major, minor, patch); ``None`` when unknown (taken as a conflict when shapely carries its own).
    platform : {"linux", "win32", "darwin"}
    global_geos : bool
        Whether QGIS's GEOS is in the process's global symbol namespace (:func:`geos_in_global_namespace`).
    """
    if platform != "linux" or facts.bundled_geos is None or not global_geos:
        return False
    return qgis_geos is None or facts.bundled_geos[:2] != qgis_geos[:2]


def install_command(qgis_geos: tuple[int, int, int] | None, platform: str, profile_python: str | None = None) -> str:
    """The one command that gives QGIS's Python a shapely 2 that can live beside QGIS's GEOS, on this platform.

    Parameters
    ----------
    qgis_geos : tuple of int or None
        QGIS's GEOS (major, minor, patch).
    platform : {"linux", "win32", "darwin"}
    profile_python : str, optional
        The profile's python folder pip installs into (default: this QGIS's, see :func:`profile_python_dir`).
    """
    if platform != "linux":
        return INSTALL_HINTS[platform]
    target = profile_python or profile_python_dir()
    wheel = WHEEL_GEOS.get(qgis_geos[:2]) if qgis_geos else None
    if qgis_geos is not None and qgis_geos[:2] >= (3, 12):
        apt = "On Debian 13, Debian unstable, Ubuntu 24.04 and later: sudo apt install python3-shapely, and remove pip's copy named above.\n"
    else:
        apt = ""
    if wheel:
        pip = (f"    python3 -m pip install --no-deps --upgrade --target {target} \"shapely{wheel}\"\n"
               f"(into your QGIS profile's python folder, which QGIS reads first: it replaces the copy above for QGIS; "
               f"that shapely's wheel carries GEOS {qgis_geos[0]}.{qgis_geos[1]}, like QGIS; --no-deps keeps QGIS's numpy)")  # type: ignore[index]
    else:
        pip = ("    sudo apt install libgeos-dev build-essential python3-dev python3-pip\n"
               f"    python3 -m pip install --no-deps --upgrade --target {target} --no-binary shapely \"shapely>=2,<2.3\"\n"
               "(built on QGIS's own GEOS, into your QGIS profile's python folder, which QGIS reads first; --no-deps keeps QGIS's numpy)")
    return f"{apt}Otherwise run:\n{pip}" if apt else f"Run:\n{pip}"


def profile_python_dir() -> str:
    """The python folder of the QGIS profile in use, which QGIS puts first on ``sys.path``, as a shell word.

    ``~/...`` under the home folder (quoted with ``$HOME`` when it holds a space); the Linux default profile's
    folder outside QGIS.
    """
    try:
        from qgis.core import QgsApplication

        settings = str(QgsApplication.qgisSettingsDirPath() or "")
    except Exception:  # outside QGIS
        settings = ""
    if not settings:
        return DEFAULT_PROFILE_PYTHON
    folder = str(Path(settings) / "python")
    home = str(Path.home())
    if folder.startswith(home + "/"):
        rest = folder[len(home):]
        return f'"$HOME{rest}"' if " " in rest else "~" + rest
    return f'"{folder}"' if " " in folder else folder


def _qgis_geos() -> tuple[int, int, int] | None:
    try:
        from qgis.core import Qgis

        return (int(Qgis.geosVersionMajor()), int(Qgis.geosVersionMinor()), int(Qgis.geosVersionPatch()))
    except Exception:  # outside QGIS, or an API without these
        return None


def _platform() -> str:
    return "win32" if sys.platform.startswith("win") else "darwin" if sys.platform == "darwin" else "linux"


def geos_problem(facts: ShapelyFacts | None = None, qgis_geos: tuple[int, int, int] | None = None, platform: str | None = None,
                 global_geos: bool | None = None) -> str | None:
    """Why the shapely found would crash QGIS, with the install command, or ``None`` when it can run.

    Decided from file names and versions only (see :func:`geos_conflict`): no
    geometry call is made, so the check itself cannot crash. Arguments default to
    this process's facts.
    """
    facts = shapely_facts() if facts is None else facts
    qgis_geos = _qgis_geos() if qgis_geos is None else qgis_geos
    platform = _platform() if platform is None else platform
    global_geos = geos_in_global_namespace() if global_geos is None else global_geos
    if not geos_conflict(facts, qgis_geos, platform, global_geos):
        return None
    theirs = ".".join(map(str, facts.bundled_geos)) if facts.bundled_geos and facts.bundled_geos != (0, 0, 0) else "of unknown version"
    ours = ".".join(map(str, qgis_geos)) if qgis_geos else "(version unknown)"
    return (
        f"Stormwater Site-Plan Review cannot run: shapely {facts.version or '?'} (in {facts.location}) carries its own GEOS {theirs}, "
        f"but QGIS has already loaded GEOS {ours}; the two cannot share one process (QGIS would crash on the first check).\n\n"
        f"{install_command(qgis_geos, platform)}\n\nThen restart QGIS."
    )


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
            f"({exc}). It was probably installed by pip as a dependency. Remove that copy (the numpy folders in "
            f"{Path(numpy.__file__).parent.parent}) so QGIS's own numpy is used, then restart QGIS."
        )
    except Exception:  # GDAL without its numpy bindings: the plugin reads rasters through QGIS anyway
        return None
    return None


def is_shapely_2(module: object) -> bool:
    """Whether an imported shapely is release 2 or later.

    Read from its version, or, where the version says nothing (Debian unstable's python3-shapely 2.2.0
    calls itself ``0+unknown``), from the vectorised API that only shapely 2 has (``from_wkb``,
    ``geos_version``).
    """
    version = str(getattr(module, "__version__", ""))
    m = re.match(r"(\d+)\.", version)
    if m and version != "0+unknown":
        return int(m.group(1)) >= 2
    return hasattr(module, "from_wkb") and hasattr(module, "geos_version")


def shapely_problem() -> str | None:
    """Why the core cannot run, or ``None`` when shapely 2 (or later) is importable.

    Returns
    -------
    str or None
        A message naming the package, the version found and how to install it
        on this platform.
    """
    conflict = geos_problem()
    if conflict:  # before the import: nothing of this shapely runs
        return conflict
    try:
        import shapely
    except Exception as exc:  # ImportError, or a broken binary wheel
        found = f"it could not be imported ({exc})"
    else:
        if is_shapely_2(shapely):
            return None
        found = f"version {getattr(shapely, '__version__', '?')} is installed"
    platform = _platform()
    hint = INSTALL_HINTS[platform].replace("{profile_python}", profile_python_dir())
    return (
        "Stormwater Site-Plan Review needs the Python package shapely, version 2 or later, "
        f"in QGIS's Python; {found}.\n\n{hint}\n\nThen restart QGIS."
    )


#: How to add reportlab (the report's PDF writer) to QGIS's Python, per platform; not a dependency of Debian's qgis.
REPORTLAB_HINTS: dict[str, str] = {
    "linux": "sudo apt install python3-reportlab",
    "win32": "in the OSGeo4W Shell: python -m pip install reportlab (untested)",
    "darwin": "/Applications/QGIS.app/Contents/MacOS/bin/python3 -m pip install --user reportlab (untested)",
}


def reportlab_problem() -> str | None:
    """A one-line message naming the install command when reportlab is missing, else ``None`` (nothing is imported)."""
    try:
        found = importlib.util.find_spec("reportlab") is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return None
    return ("The report needs the Python package reportlab, which QGIS's Python does not have: install it "
            f"({REPORTLAB_HINTS[_platform()]}), then restart QGIS. The findings and decisions are kept.")
