"""The one registry of the course's labs: what each asks for, where its parts live, what grading withholds.

The checklist, the grader, the learner-lab generator, the docs and the tests
all read this table, and find each lab's parts from its entry: its notebook
(``notebook``), the reference of each function it grades (``references``), and
one module per part named after the lab (``Lab.module``: ``lab_11_3``): its
checks in ``course_lib/checklist/labs/``, its hidden cases in
``course_grader/judging/labs/`` and its mutants in ``tests/mutants/``. No other
table lists the labs, so adding one is an entry here and those modules
(CONTRIBUTING.md, *Add a lab*).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import OptionError
from .i18n import MESSAGES, message


@dataclass(frozen=True)
class Withheld:
    """Definitions of one course module that a graded submission must not borrow.

    ``names`` empty means every top-level function of the module (its classes
    stay: a learner's function returns the course's result types).
    """

    module: str
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Lab:
    id: str
    title: str
    """In English, marked for the catalog (``message("…")``); a page in another language shows ``MESSAGES(title)``."""
    notebook: str
    """The notebook's file stem, in ``labs/`` (learner) and ``labs/solutions/``."""
    functions: tuple[str, ...]
    """The learner's functions the lab grades, by the checklist's names."""
    references: tuple[str, ...]
    """The course's own answer to each of ``functions``, in order, as ``module.function``: what the checklist
    runs when the learner passes nothing, and what decides each hidden call's expectation."""
    withheld: tuple[Withheld, ...]
    """What the grading sandbox replaces by stubs that raise ``NotAvailableWhileGrading``."""
    hidden_seed: int
    checks: int = field(kw_only=True)
    """How many checks its module defines (``course_lib/checklist/labs/<module>.py``): written here as well, on
    purpose, so a check the checklist's discovery loses fails a test (tests/lib/checklist/test_checklist.py)."""
    folder: str = "labs"
    """Where the learner's notebook lives (its solution is in ``<folder>/solutions``)."""
    optional: bool = False
    """Beyond the chapter's fifteen checks: the start page, the README and the site list it as optional, and the
    checklist run without a lab leaves its checks out (``course_lib.checklist.runner.CHAPTER_LABS``)."""

    @property
    def module(self) -> str:
        """The name of each of its parts' modules: ``lab_11_3``, or ``capstone``."""
        return f"lab_{self.id.replace('.', '_')}" if self.id[0].isdigit() else self.id

    @property
    def label(self) -> str:
        """How notebooks and messages name it: ``Lab 11.3``, or ``The capstone``."""
        return f"Lab {self.id}" if self.id[0].isdigit() else f"The {self.id}"

    def spoken_label(self, chosen: str | None = None) -> str:
        """``label`` in the reader's language (a lab keeps its English name and number, as the chapter does)."""
        return (
            MESSAGES("Lab {id}", chosen).format(id=self.id)
            if self.id[0].isdigit()
            else MESSAGES("The capstone", chosen)
        )


_BUILD_CONTEXT = (
    Withheld("course_lib.context"),
    Withheld("course_lib.explorer.table"),
    Withheld("course_lib.lifecycle.cut_point"),
    Withheld("course_lib.lifecycle.budget"),
)

LABS: dict[str, Lab] = {
    lab.id: lab
    for lab in (
        Lab("11.1", message("The compaction record and the stores"), "lab_11_1_compaction_record",
            ("parse_session_entry",), ("course_lib.parsing.parse_session_entry",),
            (Withheld("course_lib.models", ("CompactionSummary", "CompactionEntry")),), 1101, checks=3),
        Lab("11.2", message("Interaction groups"), "lab_11_2_group_interactions",
            ("group_interactions",), ("course_lib.grouping.group_interactions",),
            (Withheld("course_lib.grouping"), Withheld("course_lib.lifecycle.cut_point"),
             Withheld("course_lib.lifecycle.prefix_reuse")), 1102, checks=3),
        Lab("11.3", message("build_context without compaction"), "lab_11_3_build_context",
            ("build_context",), ("course_lib.context.build_context",), _BUILD_CONTEXT, 1103, checks=3),
        Lab("11.4", message("create_compaction_entry"), "lab_11_4_create_compaction_entry",
            ("create_compaction_entry",), ("course_lib.compaction.create_compaction_entry",),
            (Withheld("course_lib.compaction", ("create_compaction_entry", "_check_first_kept")),), 1104, checks=2),
        Lab("11.5", message("Resume from the latest compaction"), "lab_11_5_resume_from_compaction",
            ("build_context",), ("course_lib.context.build_context",), _BUILD_CONTEXT, 1105, checks=4),
        Lab("capstone", message("The compaction lifecycle"), "02_lifecycle_capstone",
            ("should_compact", "find_cut_point", "retry_after_overflow"),
            ("course_lib.lifecycle.settings.should_compact", "course_lib.lifecycle.cut_point.find_cut_point",
             "course_lib.lifecycle.overflow.retry_after_overflow"),
            (Withheld("course_lib.lifecycle.settings", ("should_compact",)),
             Withheld("course_lib.lifecycle.cut_point", ("find_cut_point",)),
             Withheld("course_lib.lifecycle.overflow", ("retry_after_overflow",))), 1106, checks=4, folder="notebooks"),
        Lab("11.6", message("Migrating old records at the boundary"), "lab_11_6_migrate_old_records",
            ("migrate_entry",), ("course_lib.migration.draft.migrate_entry",),
            (Withheld("course_lib.migration.draft"),), 1107, checks=4, optional=True),
    )
}  # fmt: skip


def lab(name: str | int | float) -> Lab:
    """The lab named ``"11.3"``, ``"Lab 11.3"`` or ``3``; a ``ValueError`` listing the labs otherwise."""
    text = str(name).strip().lower().removeprefix("the").removeprefix("lab").strip()
    if text.isdigit():
        text = f"11.{text}"
    if text not in LABS:
        raise OptionError(f"unknown lab {name!r}; choose one of {', '.join(LABS)}")
    return LABS[text]


def lab_of_notebook(stem: str) -> Lab | None:
    """The lab whose notebook file is ``stem`` (a submission may be renamed; see grading)."""
    return next((entry for entry in LABS.values() if entry.notebook == stem), None)


STUB = message("{label} not implemented yet: {function}")
"""What a learner notebook's stub raises (scripts/make_learner_labs.py writes it into the code cells, which both
editions share); the checklist and the lab cells say it in the reader's language (``spoken_stub``)."""
_STUB_TEXT = re.compile(r"(?P<label>Lab \d+\.\d+|The capstone) not implemented yet: (?P<function>\w+)")


def spoken_stub(text: str, chosen: str | None = None) -> str:
    """A stub's English sentence in the reader's language; any other text (the learner's own) as it is."""
    said = stub_said(text, chosen)
    return text if said is None else said


def stub_said(text: str, chosen: str | None = None) -> str | None:
    """A stub's English sentence in the reader's language; ``None`` when ``text`` is not a lab's stub."""
    match = _STUB_TEXT.fullmatch(text.strip())
    if match is None:
        return None
    label = match["label"]
    spoken = next((lab.spoken_label(chosen) for lab in LABS.values() if lab.label == label), label)
    return MESSAGES(STUB, chosen).format(label=spoken, function=match["function"])
