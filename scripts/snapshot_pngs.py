"""Turn Textual's SVG snapshots into PNG pictures that show what the terminal shows.

Why not ``rsvg-convert``: librsvg drops text runs made only of (non-breaking) spaces, so
indents vanish, and words after bold or highlighted runs shift; a browser lays the SVG
out as the terminal does. This renders each SVG with headless Chromium, sized to the
SVG's viewBox, using the "Fira Code" font the SVG names (Debian: ``fonts-firacode``,
``chromium``). No network: the SVG's web-font URLs are never reached because the local
font matches first, and Chromium runs with networking pointed nowhere.

Usage: ``python scripts/snapshot_pngs.py [SVG or folder …] [-o OUT]``
(default: every snapshot under ``tests/tui/__snapshots__``, into ``build/snapshots``).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_VIEWBOX = re.compile(r'viewBox="0 0 ([\d.]+) ([\d.]+)"')


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("no Chromium found: apt-get install chromium fonts-firacode")


def _size(svg: Path) -> tuple[int, int]:
    match = _VIEWBOX.search(svg.read_text(encoding="utf-8")[:400])
    if match is None:
        raise ValueError(f"{svg}: no viewBox")
    return round(float(match[1])), round(float(match[2])) + 1


_NO_LIGATURES = ".terminal-matrix { font-variant-ligatures: none; font-feature-settings: 'calt' 0 }"
"""A terminal draws ``->`` as two cells; Fira Code's ligatures would draw an arrow."""


def render(svg: Path, png: Path, browser: str) -> None:
    """One SVG → one PNG of the same size, drawn by the browser."""
    width, height = _size(svg)
    png.parent.mkdir(parents=True, exist_ok=True)
    text = svg.read_text(encoding="utf-8").replace("</style>", _NO_LIGATURES + "</style>", 1)
    with tempfile.TemporaryDirectory() as profile:
        page = Path(profile) / "snapshot.svg"
        page.write_text(text, encoding="utf-8")
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--proxy-server=127.0.0.1:9",  # nothing leaves the machine
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                f"--screenshot={png}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("-o", "--out", type=Path, default=ROOT / "build" / "snapshots")
    args = parser.parse_args(argv)
    paths: list[Path] = args.paths or [ROOT / "tests" / "tui" / "__snapshots__"]
    svgs = [s for p in paths for s in (sorted(p.rglob("*.svg")) if p.is_dir() else [p])]
    browser = _browser()
    for svg in svgs:
        png = args.out / f"{svg.parent.name}.{svg.stem}.png"
        render(svg, png, browser)
        print(png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
