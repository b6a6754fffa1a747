#!/usr/bin/env bash
# The in-QGIS engine against the shapely releases a reviewer may have installed (issue 16),
# and the pure core under numpy 2 (QGIS 3.40 on Debian 13 ships numpy 2).
#
#   scripts/engine_matrix.sh shapely   # QGIS's Python + QGIS's numpy + pip shapely 2.0, 2.1, 2.2 (--no-deps,
#                                      #   the documented install): the plugin's check through Processing
#   scripts/engine_matrix.sh numpy2    # a plain venv with numpy 2 and the newest shapely: tests/core
#   scripts/engine_matrix.sh qgis-numpy2  # QGIS's Python with pip's numpy 2 and shapely 2.2: the dock's check
#
# Each variant lives in its own venv under .matrix/ so the main .venv is never touched. Every venv gets its own
# pytest (pip's, unless the system's python3-pytest is seen); numpy is never compiled from source. Versions hold
# on Debian 12 (Python 3.11, numpy 1) and Debian 13 (Python 3.13, numpy 2).
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=offscreen
mkdir -p .matrix
what="${1:-all}"

# pytest for a venv that sees the system's site-packages: Debian's python3-pytest if there, else pip's (with deps).
ensure_pytest() {
  "$1/bin/python" -c 'import pytest' 2>/dev/null || "$1/bin/python" -m pip install -q --only-binary numpy "pytest>=7,<9"
}

if [[ "$what" == shapely || "$what" == all ]]; then
  for v in ${SHAPELY_VERSIONS:-2.0.7 2.1.2 2.2.0}; do
    venv=".matrix/shapely-$v"
    if [[ ! -x "$venv/bin/python" ]]; then
      /usr/bin/python3 -m venv --system-site-packages "$venv"
    fi
    # --no-deps: QGIS's numpy (Debian's) stays; exactly what docs/plugin.md tells a reviewer to run.
    "$venv/bin/python" -m pip install -q --no-deps "shapely==$v" "pytest-qgis==2.1.0" "geopandas>=0.14,<0.15"
    ensure_pytest "$venv"
    "$venv/bin/python" - <<'PY'
import numpy, shapely
from osgeo import gdal_array  # fails if a numpy that GDAL was not built for crept in
print(f"matrix: shapely {shapely.__version__} (GEOS {shapely.geos_version_string}), numpy {numpy.__version__}")
PY
    "$venv/bin/python" -m pytest -q -p pytest_qgis -p no:cacheprovider \
      tests/qgis/test_engine_inside_qgis.py tests/qgis/test_processing.py tests/qgis/test_cross_check_qgis.py
  done
fi

if [[ "$what" == qgis-numpy2 || "$what" == all ]]; then
  # A reviewer's QGIS whose numpy was replaced by pip's numpy 2 (or QGIS 3.40 on Debian 13, built for numpy 2):
  # the plugin's own check must run (rasters come through QGIS's provider, not GDAL's numpy bridge). On Debian 12
  # QGIS's GDAL and Debian's matplotlib were built for numpy 1, so only the dock's check tests run, not the report
  # export (on Debian 13 the system's numpy 2 already satisfies "numpy>=2" and stays).
  venv=".matrix/qgis-numpy2"
  if [[ ! -x "$venv/bin/python" ]]; then
    /usr/bin/python3 -m venv --system-site-packages "$venv"
  fi
  "$venv/bin/python" -m pip install -q --no-deps --only-binary numpy "numpy>=2" "shapely==2.2.0" "pytest-qgis==2.1.0"
  ensure_pytest "$venv"
  "$venv/bin/python" -c "import numpy, shapely; print(f'matrix: QGIS with numpy {numpy.__version__}, shapely {shapely.__version__}')"
  "$venv/bin/python" -m pytest -q -p pytest_qgis -p no:cacheprovider tests/qgis/test_wrong_layers.py tests/qgis/test_dock_fits.py
fi

if [[ "$what" == numpy2 || "$what" == all ]]; then
  venv=".matrix/numpy2"
  if [[ ! -x "$venv/bin/python" ]]; then
    # No --system-site-packages: Debian's numpy 1 and QGIS stay out of this one.
    /usr/bin/python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install -q --only-binary numpy,shapely "numpy>=2.1" "shapely>=2.1" "pytest>=7,<9" "hypothesis>=6.80"
  "$venv/bin/python" -c "import numpy, shapely; print(f'matrix: numpy {numpy.__version__}, shapely {shapely.__version__}, core only')"
  # The core must import and compute without QGIS, GDAL or pyproj: run from outside the main venv.
  "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/core
fi
