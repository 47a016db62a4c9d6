#!/bin/sh
# The mechanical passes behind `make check`: ruff's safe fixes (import order, unused noqa comments, pyupgrade
# rewrites) and then the formatter, over the whole tree with the settings in pyproject.toml. Everything it changes
# is layout; review the diff like any other. Run from anywhere: `sh scripts/tidy.sh` or `make tidy`.
set -eu
cd "$(dirname "$0")/.."
PYTHON="${TIDY_PYTHON:-.venv/bin/python}"
"$PYTHON" -m ruff check --fix --quiet . || true   # what it cannot fix, make check reports
"$PYTHON" -m ruff format --quiet .
"$PYTHON" -m ruff check --quiet .
