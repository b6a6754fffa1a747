#!/usr/bin/env python3
"""Screenshot of the plugin in the real QGIS desktop, under Xvfb, from a fresh profile.

Builds the plugin zip, installs it into ``/tmp/qgisprof`` (enabled in the
profile's QGIS3.ini), starts Xvfb on ``:99``, runs ``qgis --code
scripts/qgis_screenshot.py`` (which loads the demo and runs the check), and
grabs the screen with ImageMagick's ``import`` into ``docs/screenshot.png``.
Only the processes started here are stopped.

Usage: python3 scripts/qgis_screenshot_run.py [--jurisdiction lake-george] [--wait 40] [--envelope [--decide]]

``--envelope`` also presses "Where may a device go?" and selects the violating
device's finding (default output ``docs/screenshot-envelope.png``);
``--decide`` waives that finding to show a reviewer decision.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROFILES = Path("/tmp/qgisprof")


def install_profile(profiles: Path = PROFILES) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    from package_plugin import build

    zip_path = build(Path("/tmp/sw_dist"))
    profile = profiles / "profiles" / "default"
    plugins = profile / "python" / "plugins"
    shutil.rmtree(plugins / "stormwater_plugin", ignore_errors=True)
    plugins.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(plugins)
    ini = profile / "QGIS" / "QGIS3.ini"
    ini.parent.mkdir(parents=True, exist_ok=True)
    ini.write_text(
        "[PythonPlugins]\nstormwater_plugin=true\nprocessing=true\n\n"
        "[qgis]\nshowTips=false\nshowTips322=false\ncheckVersion=false\nallowVersionCheck=false\n"
        "[core]\nfirstRun=false\n"
        "[projections]\npromptWhenMultipleTransformsExist=false\n"
        "[app]\nprojections\\promptWhenMultipleTransformsExist=false\n"
        "[UI]\nState=@ByteArray()\n",
        encoding="utf-8",
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jurisdiction", default="lake-george")
    parser.add_argument("--wait", type=float, default=40.0)
    parser.add_argument("--envelope", action="store_true", help="also draw the siting envelope and select the violating device's finding")
    parser.add_argument("--decide", action="store_true", help="with --envelope: waive that finding (shows a reviewer decision)")
    parser.add_argument("--split", action="store_true", help="load the mixed devices layer split by geometry type, as a drop onto QGIS does")
    parser.add_argument("--dock-width", type=int, default=400, help="dock width in pixels (QGIS's default is about 400)")
    parser.add_argument("--show-layers", action="store_true", help="expand the dock's layer roles after the run")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--display", default=":99", help="X display for Xvfb (another run may hold :99)")
    parser.add_argument("--profiles", type=Path, default=PROFILES, help="QGIS profiles folder (created fresh)")
    args = parser.parse_args()
    if args.output is None:
        args.output = ROOT / "docs" / ("screenshot-envelope.png" if args.envelope else "screenshot.png")
    install_profile(args.profiles)
    env = dict(os.environ, DISPLAY=args.display, SW_REPO=str(ROOT), SW_JURISDICTION=args.jurisdiction, SW_SHOT="/tmp/sw_main_window.png",
               SW_ENVELOPE="1" if args.envelope else "", SW_DECIDE="1" if args.decide else "", SW_SPLIT="1" if args.split else "",
               SW_DOCK_WIDTH=str(args.dock_width), SW_SHOW_LAYERS="1" if args.show_layers else "")
    env.pop("QT_QPA_PLATFORM", None)
    # QGIS's embedded Python finds its home through "python3" on PATH: keep pyenv/venv shims out of it.
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".pyenv" not in p and ".venv" not in p)
    for key in ("PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH"):
        env.pop(key, None)
    # QGIS's Python (Debian's) has no shapely 2 here: lend it the project venv's shapely (built on Debian's GEOS), nothing else.
    lend = Path("/tmp/sw_pylibs")
    lend.mkdir(exist_ok=True)
    site = ROOT / ".venv" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    for item in site.glob("shapely*"):
        link = lend / item.name
        if not link.exists():
            link.symlink_to(item)
    env["PYTHONPATH"] = str(lend)
    xvfb = subprocess.Popen(["Xvfb", args.display, "-screen", "0", "1600x1000x24"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    qgis = None
    try:
        time.sleep(2)
        qgis = subprocess.Popen(["qgis", "--profiles-path", str(args.profiles), "--nologo", "--noversioncheck", "--code", str(ROOT / "scripts" / "qgis_screenshot.py")],
                                env=env, stdout=open(f"/tmp/sw_qgis{args.display.replace(':', '_')}.log", "w"), stderr=subprocess.STDOUT)
        time.sleep(args.wait)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["import", "-window", "root", str(args.output)], env=env, check=True)
        print(args.output)
    finally:
        for proc in (qgis, xvfb):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
