"""A generated class for the term's end-to-end run: ≥ 40 submissions under Canvas and Moodle download names.

What it holds, and why each is there (docs/grading.md, *The course file*):

- 14 students on a roster with aliases (Canvas logins and user ids, one
  student whose Moodle name is an alias of her roster name), each handing in
  3 of the 6 labs: 42 submissions, reference solutions and mutants from
  ``tests/mutants`` (each mutant loses marks, ``tests/lib/checklist/test_mutants.py``);
- Labs 11.1–11.3 as Canvas names them (``login_[LATE_]userid_subid_file``),
  Lab 11.4, 11.5 and the capstone as Moodle does (a folder per student);
- late work (a manifest of submission times, Canvas's ``LATE`` flag too),
  two duplicates (a Canvas re-upload ``-1``, two files in one Moodle folder)
  and one download of a student not on the roster;
- the documented course file, ``docs/examples/course.toml``, as it is.

``python tests/term_class.py DIR`` writes it to ``DIR`` (``submissions/``,
``course.toml``, ``roster.csv``, ``submitted.csv``) and prints the commands.
``build`` returns what the gradebook must then show (``Term.expected``).
"""

from __future__ import annotations

import csv
import shutil
import sys
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading_corpus import solution  # after the path: run as a script, tests/ is not on it
from mutants import MUTANTS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
NAMES = [
    ("Judith", "Smith"),
    ("Alex", "Miller"),
    ("Bo", "Chen"),
    ("Carmen", "Diaz"),
    ("Dev", "Patel"),
    ("Erin", "Olsen"),
    ("Farah", "Haddad"),
    ("Goran", "Ivic"),
    ("Hana", "Kato"),
    ("Ines", "Lopes"),
    ("Jonas", "Berg"),
    ("Kofi", "Mensah"),
    ("Lea", "Novak"),
    ("Mika", "Virtanen"),
]
CANVAS_LABS = ("11.1", "11.2", "11.3")
LABS = ("11.1", "11.2", "11.3", "11.4", "11.5", "capstone")


@dataclass(frozen=True)
class Counted:
    """What the gradebook must show for one student and lab: the counting file's kind and how many days late."""

    kind: str  # "reference" or "mutant"
    days_late: int


@dataclass
class Term:
    folder: Path
    submissions: Path
    course: Path
    roster: Path
    manifest: Path
    expected: dict[tuple[str, str], Counted] = field(default_factory=dict)
    files: int = 0
    unknown: str = ""


def _notebook_name(lab: str) -> str:
    from course_lib import lab_registry

    return f"{lab_registry.lab(lab).notebook}.ipynb"


def _mutant(lab: str, index: int) -> nbformat.NotebookNode:
    of_lab = [m for m in MUTANTS if m.lab == lab]
    return of_lab[index % len(of_lab)].notebook()


def build(folder: Path) -> Term:
    """Write the class to ``folder``; the course file is the documented example's, the roster and manifest generated."""
    from course_grader.results.course_file import load_course

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "course.toml", folder / "course.toml")
    term = Term(folder, folder / "submissions", folder / "course.toml", folder / "roster.csv", folder / "submitted.csv")
    term.submissions.mkdir()
    deadlines = {lab: load_course(EXAMPLES / "course.toml").lab(lab).deadline for lab in LABS}
    times: list[tuple[str, str]] = []
    roster = [("id", "name", "email", "aliases", "section")]
    submission_id = 9_981_000

    def put(relative: str, notebook: nbformat.NotebookNode, lab: str, days: int) -> None:
        path = term.submissions / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, path)
        deadline = deadlines[lab]
        assert deadline is not None
        when = deadline + (timedelta(days=days - 1, hours=3) if days else -timedelta(hours=5))
        times.append((relative, when.isoformat()))
        term.files += 1

    for number, (first, last) in enumerate(NAMES):
        student, login, user = f"{first[0]}{last}".lower(), f"{last}{first}".lower(), str(48200 + number)
        aliases = [login, user] + (["Judy Smith"] if first == "Judith" else [])
        roster.append(
            (student, f"{first} {last}", f"{first}.{last}@example.edu".lower(), ";".join(aliases), "AB"[number % 2])
        )
        moodle_name = "Judy Smith" if first == "Judith" else f"{first} {last}"
        for k in range(3):
            lab = LABS[(number + k) % len(LABS)]
            kind = "mutant" if (number + k) % 3 == 0 else "reference"
            notebook = _mutant(lab, number) if kind == "mutant" else solution(lab)
            days = 1 + number % 3 if (number * 3 + k) % 5 == 0 else 0
            submission_id += 1
            if lab in CANVAS_LABS:
                name = f"{login}_{'LATE_' if days else ''}{user}_{submission_id}_{_notebook_name(lab)}"
                if (
                    number == 0 and k == 0
                ):  # a first try (a mutant, on time), then a re-upload (Canvas adds -1) that counts
                    put(f"{login}_{user}_{submission_id - 1}_{_notebook_name(lab)}", _mutant(lab, 1), lab, 0)
                    name, notebook, kind = name.replace(".ipynb", "-1.ipynb"), solution(lab), "reference"
            else:
                folder_name = f"{moodle_name}_{55000 + number}_assignsubmission_file_"
                name = f"{folder_name}/{_notebook_name(lab)}"
                if number == 1 and k == 2:  # a solution first, then a "final" file that is a mutant: the latest counts
                    put(name, solution(lab), lab, 0)
                    name, notebook, kind = f"{folder_name}/final_{_notebook_name(lab)}", _mutant(lab, 2), "mutant"
            put(name, notebook, lab, days)
            term.expected[(student, lab)] = Counted(kind, days)
    term.unknown = f"doejane_49999_{submission_id + 1}_{_notebook_name('11.2')}"
    put(term.unknown, solution("11.2"), "11.2", 0)
    with term.roster.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(roster)
    with term.manifest.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows([("file", "submitted_at"), *times])
    return term


def commands(term: Term) -> list[str]:
    """The documented commands for this class (docs/grading.md)."""
    return [
        f"course-grade {term.submissions} --course {term.course} --out {term.folder}/grades.csv -j 2",
        f"course-grade export {term.folder}/grades.csv --roster {term.roster} --course {term.course} "
        f"-o {term.folder}/gradebook.csv",
    ]


if __name__ == "__main__":
    made = build(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("term-class"))
    print(f"wrote {made.files} submissions for {len(NAMES)} students to {made.submissions}")
    print("\n".join(commands(made)))
