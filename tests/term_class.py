"""A generated class for the term's end-to-end run: ≥ 40 submissions under Canvas and Moodle download names.

What it holds, and why each is there (docs/grading.md, *The course file*):

- 14 students on the roster Canvas's gradebook export gives (Grades →
  Export: ``Student`` as ``Last, First``, the Canvas user id, the SIS ids,
  the sections, its ``Points Possible`` row and Student View's Test Student),
  each handing in 3 of the 6 labs: 42 submissions, reference solutions and
  mutants from ``tests/mutants`` (each mutant loses marks,
  ``tests/lib/checklist/test_mutants.py``);
- Labs 11.1–11.3 as Canvas's *Download Submissions* names them
  (``login_[LATE_]userid_subid_file``), Lab 11.4, 11.5 and the capstone as
  Moodle's *Download all submissions* does (a folder per student and
  assignment, one of them NFD-decomposed, as a Mac unzips it);
- the submission times as the LMS gives them: Canvas's submissions JSON for
  each Canvas lab and Moodle's grading worksheet for each Moodle lab (its
  local times in Europe/Berlin, across the end of summer time), with late
  work, two duplicates (a Canvas re-upload ``-1``, a draft beside the
  notebook in one Moodle submission: one time for both, so the last in path
  order counts) and one download of a student not on the roster;
- the documented course file, ``docs/examples/course.toml``, with only the
  lines an instructor adds for these files (``COURSE_LINES``).

No file is written by hand but the course file. ``python tests/term_class.py
DIR`` writes it to ``DIR`` (``submissions/``, ``lms/``, ``course.toml``) and
prints the commands. ``build`` returns what the gradebook must then show
(``Term.expected``).
"""

from __future__ import annotations

import csv
import json
import sys
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's packages, run as a script
sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading_corpus import solution  # after the path: run as a script, tests/ is not on it
from mutants import MUTANTS
from term_secrets import beside

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
NAMES = [
    ("Judith", "Smith"),
    ("Alex", "Miller"),
    ("Bo", "Chen"),
    ("Carmen", "Díaz"),
    ("Dev", "Patel"),
    ("Erin", "Olsen"),
    ("Farah", "Haddad"),
    ("Goran", "Ivić"),
    ("Hana", "Kato"),
    ("Inês", "Lopes"),
    ("Jonas", "Berg"),
    ("Kofi", "Mensah"),
    ("Lea", "Novak"),
    ("Mika", "Virtanen"),
]
DECOMPOSED = "Inês"
"""Her Moodle folders are NFD (``e`` and a combining circumflex), as a Mac unpacks Moodle's zip."""
CANVAS_LABS = ("11.1", "11.2", "11.3")
LABS = ("11.1", "11.2", "11.3", "11.4", "11.5", "capstone")
ZONE = ZoneInfo("Europe/Berlin")
"""The Moodle user's who downloads the worksheets: their times are wall times in it."""
ROSTER = "lms/canvas-gradebook.csv"


def times_file(lab: str) -> str:
    """Where the lab's times file is saved: Canvas's JSON or Moodle's worksheet, under the name the instructor gives it."""
    stem = f"lms/lab_{lab.replace('.', '_')}"
    return f"{stem}-submissions.json" if lab in CANVAS_LABS else f"{stem}-worksheet.csv"


COURSE_LINES = {  # what the example has → what the instructor makes of it
    'roster = "roster.csv"': f'roster = "{ROSTER}"',
    'manifest = "submitted.csv" #': '# manifest = "submitted.csv" #',  # no times file for every lab: one per lab
    '# timezone = "Europe/Berlin"': 'timezone = "Europe/Berlin"',
    **{
        header: f'{header}\nmanifest = "{times_file(lab)}"'
        for lab, header in ((lab, f'[labs."{lab}"]') for lab in LABS[:-1])
    },
    "[labs.capstone]": f'[labs.capstone]\nmanifest = "{times_file("capstone")}"',
}
"""The course file's changes: the roster and times files as the LMS gives them, and the worksheets' time zone."""


@dataclass(frozen=True)
class Counted:
    """What the gradebook must show for one student and lab: the counting file's kind and how many days late."""

    kind: str  # "reference" or "mutant"
    days_late: int


@dataclass(frozen=True)
class Person:
    id: str
    first: str
    last: str
    canvas: str  # the Canvas user id
    section: str

    @property
    def email(self) -> str:
        return f"{_ascii(self.first)}.{_ascii(self.last)}@example.edu".lower()

    @property
    def login(self) -> str:
        """How Canvas's download names write the sortable name (``Smith, Judith`` → ``smithjudith``)."""
        return "".join(ch for ch in f"{self.last}{self.first}" if ch.isalnum()).lower()


@dataclass
class Term:
    folder: Path
    submissions: Path
    course: Path
    roster: Path
    expected: dict[tuple[str, str], Counted] = field(default_factory=dict)
    files: int = 0
    unknown: str = ""
    times: dict[str, Path] = field(default_factory=dict)


def _notebook_name(lab: str) -> str:
    from course_lib.teaching import lab_registry

    return f"{lab_registry.lab(lab).notebook}.ipynb"


def _mutant(lab: str, index: int) -> nbformat.NotebookNode:
    of_lab = [m for m in MUTANTS if m.lab == lab]
    return of_lab[index % len(of_lab)].notebook()


def people() -> list[Person]:
    return [
        Person(_ascii(f"{first[0]}{last}").lower(), first, last, str(48200 + number), "Section " + "AB"[number % 2])
        for number, (first, last) in enumerate(NAMES)
    ]


def _ascii(text: str) -> str:
    """``Díaz`` → ``Diaz``: the SIS ids and emails of the generated class."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def participant(lab: str, number: int) -> str:
    """Moodle's participant id: one per student and assignment (Moodle maps them per assignment)."""
    return str(55000 + 100 * LABS.index(lab) + number)


def course_text() -> str:
    text = (EXAMPLES / "course.toml").read_text(encoding="utf-8")
    for old, new in COURSE_LINES.items():
        assert text.count(old) == 1, f"docs/examples/course.toml no longer has {old!r} once"
        text = text.replace(old, new)
    return text


def build(folder: Path) -> Term:
    """Write the class to ``folder``: the submissions, the LMS's files as they download, the course file."""
    from course_grader.course.course_file import load_course

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "course.toml").write_text(course_text(), encoding="utf-8")
    beside(folder / "course.toml")  # the term's secret the example names (course-grade secret term.secret)
    term = Term(folder, folder / "submissions", folder / "course.toml", folder / ROSTER)
    term.submissions.mkdir()
    (folder / "lms").mkdir()
    example = load_course(EXAMPLES / "course.toml")  # the same labs, deadlines and points, before the LMS's files exist
    deadlines = {lab: example.lab(lab).deadline for lab in LABS}
    handed_in: dict[tuple[str, str], datetime] = {}  # (LMS id, lab) → the time the LMS shows: its latest file's
    submission_id = 9_981_000

    def put(relative: str, notebook: nbformat.NotebookNode, lab: str, days: int, lms_id: str) -> None:
        path = term.submissions / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, path)
        deadline = deadlines[lab]
        assert deadline is not None
        when = deadline + (timedelta(days=days - 1, hours=3) if days else -timedelta(hours=5))
        handed_in[(lms_id, lab)] = max(when, handed_in.get((lms_id, lab), when))
        term.files += 1

    class_list = people()
    for number, person in enumerate(class_list):
        moodle_name = f"{person.first} {person.last}"
        if person.first == DECOMPOSED:
            moodle_name = unicodedata.normalize("NFD", moodle_name)
        for k in range(3):
            lab = LABS[(number + k) % len(LABS)]
            kind = "mutant" if (number + k) % 3 == 0 else "reference"
            notebook = _mutant(lab, number) if kind == "mutant" else solution(lab)
            days = 1 + number % 3 if (number * 3 + k) % 5 == 0 else 0
            submission_id += 1
            if lab in CANVAS_LABS:
                lms_id = person.canvas
                name = f"{person.login}_{'LATE_' if days else ''}{lms_id}_{submission_id}_{_notebook_name(lab)}"
                if number == 0 and k == 0:  # a first try (a mutant, on time), then a re-upload (-1) that counts
                    first_try = f"{person.login}_{lms_id}_{submission_id - 1}_{_notebook_name(lab)}"
                    put(first_try, _mutant(lab, 1), lab, 0, lms_id)
                    name, notebook, kind = name.replace(".ipynb", "-1.ipynb"), solution(lab), "reference"
            else:
                lms_id = participant(lab, number)
                folder_name = f"{moodle_name}_{lms_id}_assignsubmission_file_"
                name = f"{folder_name}/{_notebook_name(lab)}"
                if number == 1 and k == 2:  # a draft (a mutant) beside the notebook: one submission, one time
                    put(f"{folder_name}/draft_{_notebook_name(lab)}", _mutant(lab, 2), lab, 0, lms_id)
                    notebook, kind = solution(lab), "reference"  # the last in path order counts
            put(name, notebook, lab, days, lms_id)
            term.expected[(person.id, lab)] = Counted(kind, days)
    term.unknown = f"doejane_49999_{submission_id + 1}_{_notebook_name('11.2')}"
    put(term.unknown, solution("11.2"), "11.2", 0, "49999")  # enrolled after the gradebook was exported
    _canvas_gradebook(term.roster, class_list)
    for lab in LABS:
        term.times[lab] = folder / times_file(lab)
        if lab in CANVAS_LABS:
            users = [p.canvas for p in class_list] + (["49999"] if lab == "11.2" else [])
            _canvas_submissions(term.times[lab], lab, users, handed_in)
        else:
            _moodle_worksheet(term.times[lab], lab, class_list, handed_in, example.lab(lab).points or 0)
    return term


def _canvas_gradebook(path: Path, class_list: list[Person]) -> None:
    """Grades → Export as Canvas writes it: sorted by sortable name, Points Possible first, the Test Student last."""
    labs = [f"Lab {lab} ({123400 + i})" for i, lab in enumerate(CANVAS_LABS, start=1)]
    scores = ["Current Score", "Unposted Current Score", "Final Score", "Unposted Final Score"]
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *labs, *scores]]
    rows.append(["    Points Possible", "", "", "", "", *["10.00"] * len(labs), *["(read only)"] * len(scores)])
    for p in sorted(class_list, key=lambda p: (p.last, p.first)):
        rows.append([f"{p.last}, {p.first}", p.canvas, p.id, p.email, p.section, *[""] * (len(labs) + len(scores))])
    rows.append(["Student, Test", "48290", "", "", "Section A", *[""] * (len(labs) + len(scores))])
    with path.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(rows)


def _canvas_submissions(path: Path, lab: str, users: list[str], handed_in: dict[tuple[str, str], datetime]) -> None:
    """GET …/assignments/:id/submissions?per_page=100, saved from the browser (``while(1);`` in front)."""
    assignment = 3310 + CANVAS_LABS.index(lab) + 1
    objects = []
    for number, user in enumerate(users):
        when = handed_in.get((user, lab))
        objects.append(
            {
                "id": 70000 + 100 * assignment + number,
                "assignment_id": assignment,
                "user_id": int(user),
                "submitted_at": when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if when else None,
                "workflow_state": "submitted" if when else "unsubmitted",
                "submission_type": "online_upload" if when else None,
                "attempt": (2 if user == "48200" else 1) if when else None,
                "score": None,
                "grade": None,
            }
        )
    path.write_text("while(1);" + json.dumps(objects, separators=(",", ":")), encoding="utf-8")


def _moodle_worksheet(
    path: Path, lab: str, class_list: list[Person], handed_in: dict[tuple[str, str], datetime], points: float
) -> None:
    """View all submissions → Download grading worksheet: times in the downloading user's zone, ``-`` for none."""
    header = [
        "Identifier", "Full name", "Email address", "Status", "Grade", "Maximum grade", "Grade can be changed",
        "Last modified (submission)", "Online text", "Last modified (grade)", "Feedback comments",
    ]  # fmt: skip
    rows = [header]
    for number, p in enumerate(class_list):
        when = handed_in.get((participant(lab, number), lab))
        local = when.astimezone(ZONE) if when else None
        shown = f"{local:%A}, {local.day} {local:%B %Y}, {local.hour % 12 or 12}:{local:%M %p}" if local else "-"
        status = "Submitted for grading" if when else "No submission"
        rows.append([f"Participant {participant(lab, number)}", f"{p.first} {p.last}", p.email, status, "",
                     f"{points:.2f}", "Yes", shown, "", "-", ""])  # fmt: skip
    with path.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(rows)


def commands(term: Term) -> list[str]:
    """The documented commands for this class (docs/grading.md): grade, rescore, a regrade, merge, feedback, export."""
    at = term.folder
    return [
        f"course-grade {term.submissions} --course {term.course} --out {at}/grades.csv -j 2 --feedback {at}/feedback",
        f"course-grade report {at}/grades.csv -o {at}/report.html",
        f"course-grade rescore {at}/grades.csv --course {term.course} -o {at}/rescored.csv",
        f"course-grade {term.submissions} --course {term.course} --only student:ID --out {at}/regrade.csv",
        f"course-grade merge {at}/rescored.csv {at}/regrade.csv -o {at}/term.csv",
        f"course-grade feedback {at}/term.jsonl -o {at}/pages-canvas --lms-zip canvas",
        f"course-grade export {at}/term.csv --course {term.course} --format canvas -o {at}/gradebook-canvas.csv",
        f"course-grade export {at}/term.csv --course {term.course} --format moodle -o {at}/gradebook-moodle.csv",
    ]


if __name__ == "__main__":
    made = build(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("term-class"))
    print(f"wrote {made.files} submissions for {len(NAMES)} students to {made.submissions}")
    print(f"the LMS's files: {made.roster} and {', '.join(str(p) for p in made.times.values())}")
    print("\n".join(commands(made)))
