#!/usr/bin/env bash
# Installs the Debian packages the project needs, only those missing; the same names on Debian 12
# (bookworm: QGIS 3.22, Python 3.11, numpy 1), Debian 13 (trixie: QGIS 3.40, Python 3.13, numpy 2) and sid
# (December 2026: QGIS 3.44, Python 3.14, numpy 2), plus shapely and geopandas where Debian's fit (below).
# QGIS and GDAL come from Debian so that everything in the venv links the same
# GDAL/GEOS/PROJ as QGIS does (pip wheels that bundle their own crash QGIS).
# python3-setuptools: the build backend of `pip install --no-build-isolation -e .` (a Python 3.12+ venv has
# none of its own); python3-pytest: the test runner of the matrix venvs (scripts/engine_matrix.sh);
# qgis and xvfb: the desktop the plugin is tested in (scripts/qgis_shapely_matrix.sh); python3-click: the command
# line; python3-docx and python3-scipy: the letter and contours-dem (pyproject.toml's extras letter and contours).
set -euo pipefail
PKGS=(python3-qgis qgis-providers python3-venv python3-dev python3-pip build-essential
      libgeos-dev gdal-bin python3-gdal python3-pyproj python3-rasterio python3-fiona python3-pandas
      python3-matplotlib python3-jinja2 python3-reportlab fonts-dejavu-core poppler-utils
      python3-setuptools python3-pytest
      python3-docx python3-ezdxf python3-filelock python3-click python3-scipy
      qgis xvfb)
# shapely 2 and geopandas from Debian where Debian's are new enough (Debian 13: shapely 2.1, geopandas 1.0; sid:
# 2.2 and 1.2): built on the system's GEOS like QGIS, and nothing is compiled. Debian 12's python3-shapely is 1.8,
# so the Makefile builds shapely 2.0 from source there against the same GEOS (and takes geopandas 0.14 from pip).
candidate() { apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" {print $2}'; }
if [ -z "$(candidate python3-shapely)" ] && ! dpkg-query -W -f='${Status}' python3-shapely 2>/dev/null | grep -q "install ok installed"; then
  apt-get update -qq 2>/dev/null || true  # package lists not read yet (a new machine): without them no candidate shows
fi
v="$(candidate python3-shapely)"
# Without their Recommends (geopandas recommends web-map and cloud-storage packages the project never uses).
LEAN=()
if [ -n "$v" ] && dpkg --compare-versions "$v" ge 2; then LEAN+=(python3-shapely); fi
v="$(candidate python3-geopandas)"
if [ -n "$v" ] && dpkg --compare-versions "$v" ge 0.14; then LEAN+=(python3-geopandas); fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
missing_lean=()
for p in "${LEAN[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing_lean+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && [ ${#missing_lean[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing Debian packages: ${missing[*]} ${missing_lean[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "error: these Debian packages are missing and this user is not root: ${missing[*]} ${missing_lean[*]}" >&2
    echo "  run: sudo apt-get install -y ${missing[*]} ${missing_lean[*]}" >&2
    exit 2
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get install -y -qq "${missing[@]}"
fi
if [ ${#missing_lean[@]} -gt 0 ]; then
  $SUDO apt-get install -y -qq --no-install-recommends "${missing_lean[@]}"
fi
