"""Build the course website: ``python scripts/build_book.py [OUTPUT_DIR]`` (default build/book).

The site has an edition per language (book/sources.py, issue 32): ``OUTPUT_DIR/en/`` and
``OUTPUT_DIR/zh/``, and ``OUTPUT_DIR/index.html`` leads to the English one. For each edition
this copies what a learner reads (its start page and the pages and pictures book/sources.py
lists: the notebooks, the learner labs, docs/; the Chinese edition's from labs/zh/,
notebooks/zh/, docs/zh/) into a staging folder that mirrors the repository's English layout,
so every page's path is its English notebook's path in the repository and the notebooks'
relative links work as they do in JupyterLab; then runs Sphinx on it with book/conf.py
(``BOOK_EDITION`` names the edition). Solutions are not copied. Nothing is executed and
nothing is downloaded. The editions are built side by side, each in a process of its own
(Sphinx's translations and jieba's dictionary are per process).
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
sys.path.insert(0, str(BOOK))

from sources import EDITIONS, ENGLISH, Edition  # noqa: E402 (book/ is on the path only from the line above)

REDIRECT = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<meta http-equiv="refresh" content="0; url={target}">
<link rel="canonical" href="{target}">
</head>
<body>
<p><a href="{target}">{title}</a>{others}</p>
</body>
</html>
"""


class BuildFailedError(RuntimeError):
    """An edition's Sphinx build failed (a warning counts: the build runs with -W)."""


def stage(edition: Edition, staging: Path, root: Path = ROOT) -> list[Path]:
    """A fresh copy of ``edition``'s sources under ``staging``, at their English twins' repository paths."""
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    start = root / "book" / edition.start_page
    shutil.copy2(start, staging / "index.md")
    copied = [start]
    for site_path, source in {**edition.pages(root), **edition.assets(root)}.items():
        target = staging / site_path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        copied.append(source)
    return copied


def redirect(output: Path) -> None:
    """``output/index.html``: the site's root leads to the English edition (and names the others)."""
    english = EDITIONS[ENGLISH]
    others = "".join(
        f' · <a href="{name}/" hreflang="{edition.language.replace("_", "-")}">{html.escape(edition.label)}</a>'
        for name, edition in EDITIONS.items()
        if name != ENGLISH
    )
    page = REDIRECT.format(title=html.escape(english.title), target=f"{ENGLISH}/", others=others)
    (output / "index.html").write_text(page, encoding="utf-8")


def sphinx_command(work: Path, *, quiet: bool) -> list[str]:
    """Sphinx on ``work/source`` into ``work/html``; its doctrees and myst-nb's output folder (``jupyter_execute``,
    always beside the HTML) stay in ``work``, out of the published site."""
    source, html_dir, doctrees = work / "source", work / "html", work / "doctrees"
    arguments = ["-b", "html", "-c", str(BOOK), "-d", str(doctrees), "-n", "--keep-going", "-W"]
    return [sys.executable, "-m", "sphinx", *(["-q"] if quiet else []), *arguments, str(source), str(html_dir)]


def build(output: Path, *, quiet: bool = False) -> dict[str, float]:
    """Stage every edition next to ``output`` (in ``<output>-src/<edition>/``) and build it into ``output/<edition>``;
    the seconds each took.

    Raises ``BuildFailedError`` naming the editions whose Sphinx build failed (Sphinx printed why).
    """
    staging_root = output.parent / f"{output.name}-src"
    shutil.rmtree(staging_root, ignore_errors=True)
    shutil.rmtree(output, ignore_errors=True)
    running: dict[str, tuple[subprocess.Popen[bytes], float]] = {}
    for name, edition in EDITIONS.items():
        started = time.perf_counter()
        stage(edition, staging_root / name / "source")
        environment = {**os.environ, "BOOK_EDITION": name}
        process = subprocess.Popen(sphinx_command(staging_root / name, quiet=quiet), env=environment)
        running[name] = (process, started)
    seconds: dict[str, float] = {}
    failed: list[str] = []
    while len(seconds) < len(running):
        for name, (process, started) in running.items():
            if name not in seconds and process.poll() is not None:
                seconds[name] = time.perf_counter() - started
                if process.returncode != 0:
                    failed.append(name)
        time.sleep(0.05)
    if failed:
        raise BuildFailedError(f"the Sphinx build of {', '.join(failed)} failed (its warnings are above)")
    output.mkdir(parents=True)
    for name in EDITIONS:
        (staging_root / name / "html").replace(output / name)
    redirect(output)
    return seconds


def main(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Build the course website (what `make book` runs).")
    parser.add_argument("output", nargs="?", type=Path, default=ROOT / "build" / "book", help="default: build/book")
    output: Path = parser.parse_args(arguments).output
    started = time.perf_counter()
    try:
        seconds = build(output.resolve(), quiet=True)  # Sphinx still prints every warning (and fails on one)
    except BuildFailedError as error:
        print(f"build_book: {error}", file=sys.stderr)
        return 1
    each = ", ".join(f"{name}/ in {took:.1f} s" for name, took in seconds.items())
    print(f"built {output / 'index.html'} in {time.perf_counter() - started:.1f} s ({each}, side by side)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
