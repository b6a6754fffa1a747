#!/usr/bin/env bash
# The live loop on the QGIS desktop under Xvfb (issue 39): scripts/desktop_live_edit.py in a throw-away profile
# (HOME) with the plugin linked in; the log and the screenshot go to OUT (default out/live-desktop).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(realpath -m "${OUT:-$root/out/live-desktop}")"
mkdir -p "$out"
cd "$root"
. scripts/desktop_profile.sh
throwaway_profile live-edit
site="${SHAPELY_SITE:-$(shapely_site)}"  # as desktop_sitting.sh
set +e
WALK_OUT="$out" WALK_REPO="$root" PYTHONPATH="$site" QT_QPA_PLATFORM=xcb XDG_RUNTIME_DIR="$work" \
  timeout 600 xvfb-run -a -s "-screen 0 1600x1000x24" /usr/bin/qgis --nologo --code "$root/scripts/desktop_live_edit.py" > "$out/qgis.txt" 2>&1
rc=$?
set -e
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("\n".join(d["steps"])); sys.exit(0 if d["done"] and not d["failures"] else 1)' "$out/walk.json"
exit $rc
