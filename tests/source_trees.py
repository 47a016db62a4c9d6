"""The syntax of every module of the course's code, parsed once per test process.

Several tests hold the whole tree to a rule (the layers, errors under ``CourseError``, the one diff, each
dependency with its part); each walks the same files' syntax trees from here instead of
reading and parsing them again. The nodes are shared: a test reads them, never changes them.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of ``path``'s syntax tree, in ``ast.walk``'s order (parsed again once the file changes)."""
    stat = path.stat()
    return _nodes(path, stat.st_mtime_ns, stat.st_size)


@cache
def _nodes(path: Path, _modified: int, _size: int) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))))
