"""The sandbox's view of ``course_lib``: the lab's reference replaced by stubs, grading internals left out.

A graded kernel imports ``course_lib`` like any notebook, and functions from
earlier labs stay usable. But the definitions the lab asks the learner to write
(``course_lib.teaching.lab_registry``: ``Lab.withheld``) are rewritten, at the source level, into
stubs that raise ``NotAvailableWhileGrading``; the real code is not in the
sandbox at all, so no wrapper, thread or profiler trick can reach it. The
grader's own modules (hidden cases, verdicts, the CLI) are not copied either:
only ``course_lib`` is, and the grader's kernel side lives in it
(``course_lib.checklist.harness``), so nothing of ``course_grader`` is ever in a
sandbox. And a graded notebook shares nothing with a live lab (issue 46): the view's
``course_lib.checklist.live`` says ``GRADING = True``, so no checklist run in it posts,
whatever its cells or variables say.
"""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

import course_lib
from course_lib.checklist import live
from course_lib.teaching.lab_registry import Lab

from ..errors import SandboxError

PACKAGE = Path(course_lib.__file__).resolve().parent
"""The learner's package, which a sandbox sees (as this lab's view) wherever it is installed."""
LIVE = Path(live.__file__).resolve().relative_to(PACKAGE)
SHARING, NOT_SHARING = "GRADING = False\n", "GRADING = True\n"
"""The live lab's switch in ``course_lib/checklist/live.py``, as the package has it and as the view writes it."""


def build_view(lab: Lab, target: Path) -> Path:
    """Write the lab's view of the package to ``target/course_lib`` and return that folder."""
    view = target / "course_lib"
    shutil.copytree(PACKAGE, view, ignore=_ignore)
    for withheld in lab.withheld:
        relative = Path(*withheld.module.split(".")[1:]).with_suffix(".py")
        path = view / relative
        path.write_text(
            stub_source(path.read_text(encoding="utf-8"), withheld.module, withheld.names, lab), encoding="utf-8"
        )
    never_sharing(view / LIVE)
    return view


def never_sharing(path: Path) -> None:
    """Turn the live lab's sharing off for good in the view's copy of ``live.py`` (it must hold the switch once)."""
    source = path.read_text(encoding="utf-8")
    if source.count(SHARING) != 1:
        raise SandboxError(f"{path}: expected one line {SHARING.strip()!r} to turn the live lab off while grading")
    path.write_text(source.replace(SHARING, NOT_SHARING), encoding="utf-8")


def _ignore(folder: str, names: list[str]) -> set[str]:
    return {name for name in names if name == "__pycache__" or name.endswith((".pyc", ".pyo"))}


def stub_source(source: str, module: str, names: tuple[str, ...], lab: Lab) -> str:
    """``source`` with the withheld definitions replaced by stubs (every function when ``names`` is empty)."""
    tree = ast.parse(source)
    body: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (not names or node.name in names):
            body.append(_stub_function(node.name, f"{module}.{node.name}", lab.id))
        elif isinstance(node, ast.ClassDef) and node.name in names:
            body.append(_stub_model(node, f"{module}.{node.name}", lab.id))
        else:
            body.append(node)
    insert_at = next((i for i, node in enumerate(body) if not _is_preamble(node)), len(body))
    imports = ast.parse(
        "from course_lib.errors import NotAvailableWhileGrading as _NotAvailableWhileGrading\n"
        "from pydantic import model_validator as _model_validator\n"
    ).body
    tree.body = body[:insert_at] + imports + body[insert_at:]
    header = f"# Withheld while grading Lab {lab.id}: the definitions the lab asks for are stubs here.\n"
    return header + ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _is_preamble(node: ast.stmt) -> bool:
    """The module docstring and ``from __future__`` imports must stay first."""
    docstring = (
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    )
    return docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__")


def _stub_function(name: str, qualified: str, lab: str) -> ast.stmt:
    return ast.parse(
        f"def {name}(*args, **kwargs):\n    raise _NotAvailableWhileGrading({qualified!r}, {lab!r})\n"
    ).body[0]


def _stub_model(node: ast.ClassDef, qualified: str, lab: str) -> ast.stmt:
    """A model that refuses every value; it keeps its ``Literal`` tag fields so tagged unions still build."""
    tags = [item for item in node.body if isinstance(item, ast.AnnAssign) and "Literal" in ast.unparse(item.annotation)]
    validator = ast.parse(
        "@_model_validator(mode='before')\n"
        "@classmethod\n"
        "def _withheld(cls, value):\n"
        f"    raise _NotAvailableWhileGrading({qualified!r}, {lab!r})\n"
    ).body[0]
    withheld = ast.ClassDef(
        name=node.name, bases=node.bases, keywords=node.keywords, body=[*tags, validator], decorator_list=[]
    )
    if sys.version_info >= (3, 12):  # compile() needs the field from 3.12 on
        withheld.type_params = []
    return withheld
