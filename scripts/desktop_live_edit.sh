#!/usr/bin/env bash
# The live loop on the QGIS desktop under Xvfb (issue 39): scripts/desktop_live_edit.py in a throw-away profile
# (HOME) with the plugin linked in; the log and the screenshot go to OUT (default out/live-desktop).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(realpath -m "${OUT:-$root/out/live-desktop}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"
profile="$HOME/.local/share/QGIS/QGIS3/profiles/default"
plugin="$profile/python/plugins/stormwater_plugin"
mkdir -p "$plugin" "$profile/QGIS" "$out"
for f in "$root"/stormwater_plugin/*; do ln -s "$f" "$plugin/"; done
ln -s "$root/metadata.txt" "$plugin/metadata.txt"
printf '[PythonPlugins]\nstormwater_plugin=true\n' > "$profile/QGIS/QGIS3.ini"
site="${SITE_PACKAGES:-$(/work/main/.venv/bin/python -c 'import shapely, os; print(os.path.dirname(os.path.dirname(shapely.__file__)))' 2>/dev/null || true)}"
export DISPLAY=":$((90 + RANDOM % 9))"
/usr/bin/Xvfb "$DISPLAY" -screen 0 1600x1000x24 > /dev/null 2>&1 & xvfb=$!
sleep 2
set +e
WALK_OUT="$out" WALK_REPO="$root" PYTHONPATH="$site" QT_QPA_PLATFORM=xcb XDG_RUNTIME_DIR="$work" \
  timeout 600 /usr/bin/qgis --nologo --code "$root/scripts/desktop_live_edit.py" > "$out/qgis.txt" 2>&1
rc=$?
set -e
kill "$xvfb" 2>/dev/null || true
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("\n".join(d["steps"])); sys.exit(0 if d["done"] and not d["failures"] else 1)' "$out/walk.json"
exit $rc
