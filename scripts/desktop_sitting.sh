#!/usr/bin/env bash
# The reviewer's sitting on the real QGIS desktop under Xvfb (issue 36): scripts/desktop_sitting.py.
#
#   scripts/desktop_sitting.sh [OUT]      # OUT defaults to .matrix/sitting; the log is OUT/sitting.json, screenshots OUT/*.png
#
# QGIS's Python needs shapely 2 (issue 24): SHAPELY_SITE names a folder holding it (default: the shapely of
# the project's venv, linked alone into a folder so nothing else of the venv shadows QGIS's own packages).
# The plugin is linked into a throw-away QGIS profile (HOME), so the user's profile is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="$(realpath -m "${1:-$root/.matrix/sitting}")"
mkdir -p "$out"
. scripts/desktop_profile.sh
throwaway_profile sitting
site="${SHAPELY_SITE:-$(shapely_site)}"
set +e
WALK_OUT="$out" WALK_REPO="$root" PYTHONPATH="$site" QT_QPA_PLATFORM=xcb \
  timeout 900 xvfb-run -a -s "-screen 0 1600x1000x24" /usr/bin/qgis --nologo --code "$root/scripts/desktop_sitting.py" > "$out/qgis.txt" 2>&1
rc=$?
set -e
python3 - "$out/sitting.json" "$rc" <<'EOF'
import json, sys
log = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
ok = log.get("done") and not log["failures"] and rc < 128
print(f"sitting: {'ok' if ok else 'FAILED'} (QGIS exit {rc}); {sum(s.startswith('ok: ') for s in log['steps'])} checks held, "
      f"{len(log['failures'])} failed; dialogs: {log['dialogs']}")
for f in log["failures"]:
    print("  FAILED:", f[:400])
sys.exit(0 if ok else 1)
EOF
