#!/usr/bin/env bash
# The plugin inside a real QGIS process (qgis_process, where QGIS's GEOS is loaded for the whole process)
# with each shapely a reviewer may install from pip (issue 24 item 1):
#   - a shapely whose wheel carries the same GEOS minor release as QGIS (2.0.7 beside QGIS 3.22's GEOS 3.11) runs the check;
#   - one carrying another GEOS (2.1.2: 3.13, 2.2.0: 3.14) would crash QGIS (signal 11): the plugin refuses with
#     one message naming the install command, and qgis_process exits 1, never 139.
#
#   - and on the desktop (Xvfb, DESKTOP=0 to skip): scripts/desktop_walkthrough.py runs the dock's task with that shapely
#     and the reviewer's save / open / save / new / reopen / save / close, or records the refusal.
#
#   scripts/qgis_shapely_matrix.sh            # SHAPELY_VERSIONS="2.0.7 2.1.2 2.2.0" by default
#
# Each shapely lives in .matrix/shapely-<v> (the same venvs as engine_matrix.sh), put first on PYTHONPATH;
# the plugin is linked into a throw-away QGIS profile (HOME), so the user's profile is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
export QT_QPA_PLATFORM=offscreen
. scripts/desktop_profile.sh
throwaway_profile run
qp=/usr/bin/qgis_process.bin  # /usr/bin/qgis_process adds --noversioncheck, which 3.22 rejects
[[ -x "$qp" ]] || qp="$(command -v qgis_process)"
demo="$root/resources/demo"
args=()
for r in parcels shoreline waterbodies streams wetlands wells septic building_sites devices clearing disturbance impervious soils; do
  args+=("${r^^}=$demo/site.gpkg|layername=$r")
done
qgis_geos="$(/usr/bin/python3 -c 'from qgis.core import Qgis; print(f"{Qgis.geosVersionMajor()}.{Qgis.geosVersionMinor()}")')"
failed=0
for v in ${SHAPELY_VERSIONS:-2.0.7 2.1.2 2.2.0}; do
  venv=".matrix/shapely-$v"
  if [[ ! -x "$venv/bin/python" ]]; then
    /usr/bin/python3 -m venv --system-site-packages "$venv"
  fi
  "$venv/bin/python" -m pip install -q --no-deps --only-binary shapely "shapely==$v"
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  geos="$("$venv/bin/python" -c 'import shapely; print("{}.{}".format(*shapely.geos_version))')"
  set +e
  PYTHONPATH="$site" timeout 600 "$qp" run stormwater_review:checksiteplan -- "${args[@]}" "DEM=$demo/dem.tif" JURISDICTION=1 \
    "FINDINGS=$work/findings-$v.gpkg" "OUTPUT_JSON=$work/findings-$v.json" > "$work/out-$v.txt" 2>&1
  rc=$?
  set -e
  if [[ "$geos" == "$qgis_geos" ]]; then
    if [[ $rc -eq 0 && -s "$work/findings-$v.json" ]]; then
      echo "matrix: shapely $v (GEOS $geos, QGIS $qgis_geos): check ran"
    else
      echo "matrix: shapely $v (GEOS $geos, QGIS $qgis_geos): FAILED, exit $rc"; tail -20 "$work/out-$v.txt"; failed=1
    fi
  else
    if [[ $rc -ne 0 && $rc -lt 128 ]] && grep -q "cannot share one process" "$work/out-$v.txt" \
        && [[ "$(grep -c "cannot share one process" "$work/out-$v.txt")" -eq 1 ]]; then
      echo "matrix: shapely $v (GEOS $geos, QGIS $qgis_geos): refused with one message, exit $rc"
    else
      echo "matrix: shapely $v (GEOS $geos, QGIS $qgis_geos): NOT REFUSED CLEANLY, exit $rc"; tail -20 "$work/out-$v.txt"; failed=1
    fi
  fi
  if [[ -n "${DISPLAY:-}" || -x /usr/bin/Xvfb ]] && [[ -x /usr/bin/qgis ]] && [[ "${DESKTOP:-1}" == 1 ]]; then
    # The desktop: the dock's QgsTask with this shapely, then save / open / save / new / reopen / save / close.
    walk="$work/walk-$v"
    cli_counts="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d["counts"]))' "$work/findings-$v.json" 2>/dev/null || true)"
    run_desktop() {
      # QGIS counts a layer whose file lies under its temp folder (TMPDIR) as temporary and asks before closing it; a
      # clone under /tmp would then raise QGIS's own prompt. The walk's temp folder is its own, beside its data.
      mkdir -p "$walk-tmp"
      TMPDIR="$walk-tmp" WALK_OUT="$walk" WALK_REPO="$root" WALK_CLI_COUNTS="$cli_counts" PYTHONPATH="$site" QT_QPA_PLATFORM=xcb \
        timeout 600 /usr/bin/qgis --nologo --code "$root/scripts/desktop_walkthrough.py" > "$walk.txt" 2>&1
    }
    set +e
    if [[ -n "${DISPLAY:-}" ]]; then run_desktop; else DISPLAY=:$((90 + RANDOM % 9)); export DISPLAY
      /usr/bin/Xvfb "$DISPLAY" -screen 0 1600x1000x24 > /dev/null 2>&1 & xvfb=$!; sleep 2; run_desktop; kill "$xvfb"; unset DISPLAY; fi
    rc=$?
    set -e
    verdict="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("refused" if d.get("refused") else "ok" if d["done"] and not d["failures"] else "failed: " + "; ".join(d["failures"]))' "$walk/walk.json" 2>/dev/null || echo "no log")"
    if [[ $rc -ge 128 ]]; then
      echo "matrix: desktop, shapely $v: QGIS CRASHED (exit $rc)"; failed=1
    elif [[ "$geos" == "$qgis_geos" && "$verdict" == ok ]] || [[ "$geos" != "$qgis_geos" && "$verdict" == refused ]]; then
      echo "matrix: desktop, shapely $v: walk-through $verdict"
    else
      echo "matrix: desktop, shapely $v: $verdict (exit $rc)"; tail -20 "$walk.txt"; failed=1
    fi
  fi
done
exit $failed
