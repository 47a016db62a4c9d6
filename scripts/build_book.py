"""Build the course website: ``python scripts/build_book.py [OUTPUT_DIR]`` (default build/book).

Copies what a learner reads (book/index.md and the pages and pictures book/sources.py lists:
the notebooks, the learner labs, docs/) into a staging folder that mirrors the repository's layout, so every page's path is the notebook's
path in the repository (the launch buttons open that path) and the notebooks' relative links
work as they do in JupyterLab; then runs Sphinx on it with book/conf.py. Solutions are not
copied. Nothing is executed and nothing is downloaded.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from sphinx.cmd.build import build_main

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
sys.path.insert(0, str(BOOK))

from sources import ASSETS, PAGES  # noqa: E402 (book/ is on the path only from the line above)


def stage(staging: Path) -> list[Path]:
    """A fresh copy of the sources under ``staging``, at their repository paths."""
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    copied = [BOOK / "index.md"]
    shutil.copy2(BOOK / "index.md", staging / "index.md")
    for pattern in (*PAGES, *ASSETS):
        for source in sorted(ROOT.glob(pattern)):
            if source.is_file():
                target = staging / source.relative_to(ROOT)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
                copied.append(source)
    return copied


def build(output: Path, *, quiet: bool = False) -> int:
    """Stage the sources next to ``output`` and build the HTML site into it; Sphinx's exit status."""
    staging = output.parent / f"{output.name}-src"
    stage(staging)
    shutil.rmtree(output, ignore_errors=True)
    arguments = ["-b", "html", "-c", str(BOOK), "-n", "--keep-going", "-W", str(staging), str(output)]
    if quiet:
        arguments.insert(0, "-q")
    return build_main(arguments)


def main(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Build the course website (what `make book` runs).")
    parser.add_argument("output", nargs="?", type=Path, default=ROOT / "build" / "book", help="default: build/book")
    output: Path = parser.parse_args(arguments).output
    started = time.perf_counter()
    status = build(output.resolve(), quiet=True)  # Sphinx still prints every warning (and fails on one)
    if status == 0:
        print(f"built {output / 'index.html'} in {time.perf_counter() - started:.1f} s")
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
