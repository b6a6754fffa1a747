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
mkdir -p "$out" .matrix/tmp
# Not under /tmp: QGIS calls a layer whose file is in the temporary folder "temporary" and asks about it on close.
work="$(mktemp -d "$root/.matrix/tmp/sitting.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"
profile="$HOME/.local/share/QGIS/QGIS3/profiles/default"
plugin="$profile/python/plugins/stormwater_plugin"
mkdir -p "$plugin" "$profile/QGIS"
for f in "$root"/stormwater_plugin/*; do ln -s "$f" "$plugin/"; done
ln -s "$root/metadata.txt" "$plugin/metadata.txt"
printf '[PythonPlugins]\nstormwater_plugin=true\n' > "$profile/QGIS/QGIS3.ini"
site="${SHAPELY_SITE:-}"
if [[ -z "$site" ]]; then
  venv_site="$(/work/main/.venv/bin/python -c 'import shapely, os; print(os.path.dirname(os.path.dirname(shapely.__file__)))')"
  site="$work/site"
  mkdir -p "$site"
  for f in "$venv_site"/shapely "$venv_site"/shapely-*.dist-info "$venv_site"/shapely.libs "$venv_site"/filelock "$venv_site"/filelock-*.dist-info; do
    [[ -e "$f" ]] && ln -s "$f" "$site/"
  done
fi
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
