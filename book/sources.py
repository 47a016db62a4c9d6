"""What the course website is built from, as paths in the repository (the one list: book/conf.py
publishes these pages, scripts/build_book.py stages them). Learner versions only: the solutions
in labs/solutions/ and notebooks/solutions/ match no pattern, so they are never published."""

from __future__ import annotations

# Pages, besides the book's own start page (book/index.md); docs/zh/ holds the Chinese glossary (docs/glossary.md links it).
PAGES = ("notebooks/*.ipynb", "labs/*.ipynb", "docs/*.md", "docs/zh/*.md")
# Files a page may show or link to (pictures in docs/, the example course file and roster).
ASSETS = ("docs/*.png", "docs/*.svg", "docs/examples/*")
