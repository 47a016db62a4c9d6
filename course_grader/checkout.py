"""Where the grader runs from: a course checkout has ``labs/``, ``docs/`` and ``pyproject.toml`` here, a plain ``pip install`` has not."""

from __future__ import annotations

from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
"""The folder above the package: the course checkout when the grader runs from one."""
