"""A generated class for the term's end-to-end run: ≥ 50 submissions under Canvas and Moodle download names.

What it holds, and why each is there (docs/grading.md, *The course file*):

- 19 students on the roster Canvas's gradebook export gives (Grades →
  Export: ``Student`` as ``Last, First``, the Canvas user id, the SIS ids,
  two sections, its ``Points Possible`` row and Student View's Test
  Student); 14 of them hand in 3 of the 6 labs each, reference solutions and
  mutants from ``tests/mutants`` (each mutant loses marks,
  ``tests/lib/checklist/test_mutants.py``);
- Labs 11.1–11.3 as Canvas's *Download Submissions* names them
  (``login_[LATE_]userid_attachmentid_file``), Lab 11.4, 11.5 and the
  capstone as Moodle's *Download all submissions* does (a folder per student
  and assignment, one of them NFD-decomposed, as a Mac unzips it);
- the submission times as the LMS gives them: Canvas's submissions JSON for
  each Canvas lab, saved with ``include[]=submission_history`` (each
  attempt's time and attachments; Lab 11.1's in pages of 6, a folder of
  them, as the API answers a large class), Moodle's grading worksheet for
  Labs 11.4 and 11.5 (its local times in Europe/Berlin, across the end of
  summer time), and the capstone's times as an export of the pack's form
  (``file,submitted_at``) writes them: in NFC, for folders on disk in NFD;
- issue 44's cases, each a student of its own (``CASES``): a Lab 11.2
  notebook handed in to the 11.3 assignment a week after 11.2's deadline
  (Sofia), a Canvas resubmission whose first attempt was on time (Omar), a
  Moodle submission holding a stub and ``… (1).ipynb`` under one worksheet
  time (Anna), two students named Wei Zhang in Moodle (told apart by the
  worksheet's email), with the rest of the class's late work, a draft beside
  the notebook in one Moodle submission (one time for both: a tie) and one
  download of a student not on the roster, who enrols later (the roster
  after, ``ROSTER_AFTER``: Canvas's export again, with her);
- the documented course file, ``docs/examples/course.toml``, with only the
  lines an instructor adds for these files (``COURSE_LINES``).

No file is written by hand but the course file. ``python tests/term_class.py
DIR`` writes it to ``DIR`` (``submissions/``, ``lms/``, ``course.toml``) and
prints the commands. ``build`` returns what the gradebook must then show
(``Term.expected``) and where each case is (``Term.cases``).
"""

from __future__ import annotations

import csv
import json
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's packages, run as a script
sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading_corpus import learner, solution  # after the path: run as a script, tests/ is not on it
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
CASES = [("Wei", "Zhang"), ("Wei", "Zhang"), ("Sofia", "Lopez"), ("Omar", "Nasser"), ("Anna", "Kowalski")]
"""Issue 44's students, after the class: two namesakes, the wrong assignment, the resubmission, the re-upload."""
DECOMPOSED = "Inês"
"""Her Moodle folders are NFD (``e`` and a combining circumflex), as a Mac unpacks Moodle's zip."""
CANVAS_LABS = ("11.1", "11.2", "11.3")
LABS = ("11.1", "11.2", "11.3", "11.4", "11.5", "capstone")
ZONE = ZoneInfo("Europe/Berlin")
"""The Moodle user's who downloads the worksheets: their times are wall times in it."""
ROSTER = "lms/canvas-gradebook.csv"
ROSTER_AFTER = "lms/canvas-gradebook-after.csv"
"""Canvas's gradebook export again, once the student who was not on the roster has enrolled."""
PAGE = 6
"""Submission objects per page of Lab 11.1's submissions JSON (``?per_page=6``; Canvas's default is 10)."""


def times_file(lab: str) -> str:
    """Where the lab's times file is saved: Canvas's JSON (11.1's a folder of pages), Moodle's worksheet, the
    capstone's export."""
    stem = f"lms/lab_{lab.replace('.', '_')}"
    if lab == "11.1":
        return f"{stem}-submissions"
    if lab == "capstone":
        return "lms/capstone-submitted.csv"
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
    mail: str = ""

    @property
    def email(self) -> str:
        return self.mail or f"{_ascii(self.first)}.{_ascii(self.last)}@example.edu".lower()

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
    cases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Issue 44's cases: each one's student id(s) and files (paths under ``submissions``)."""


def _notebook_name(lab: str) -> str:
    from course_lib.teaching import lab_registry

    return f"{lab_registry.lab(lab).notebook}.ipynb"


def _mutant(lab: str, index: int) -> nbformat.NotebookNode:
    of_lab = [m for m in MUTANTS if m.lab == lab]
    return of_lab[index % len(of_lab)].notebook()


def people() -> list[Person]:
    """The class and issue 44's students, each with a roster id of their own (the second Wei Zhang: ``wzhang2``)."""
    found: list[Person] = []
    for number, (first, last) in enumerate(NAMES + CASES):
        ident = _ascii(f"{first[0]}{last}").lower()
        twin = sum(p.id.rstrip("0123456789") == ident for p in found)
        mail = f"{_ascii(first)}.{_ascii(last)}.{twin + 1}@example.edu".lower() if twin else ""
        section = "Section " + "AB"[number % 2]
        found.append(Person(f"{ident}{twin + 1}" if twin else ident, first, last, str(48200 + number), section, mail))
    return found


def newcomer() -> Person:
    """Jane Doe: her download is in the class's (user 49999), her name only in the roster after (``ROSTER_AFTER``)."""
    return Person("jdoe", "Jane", "Doe", "49999", "Section B")


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


@dataclass
class _Class:
    """The class being written: the files, and what the LMS records of each handing in."""

    term: Term
    deadlines: dict[str, datetime]
    attempts: dict[tuple[str, str], list[tuple[str, datetime]]] = field(default_factory=dict)
    """(LMS id, assignment) → each upload's attachment id (Canvas) or file (Moodle, the capstone) and time."""
    attachment: int = 9_981_000

    def when(self, lab: str, days: int) -> datetime:
        """A time ``days`` started days after ``lab``'s deadline (0: five hours before it)."""
        return self.deadlines[lab] + (timedelta(days=days - 1, hours=3) if days else -timedelta(hours=5))

    def put(
        self, relative: str, notebook: nbformat.NotebookNode, assignment: str, when: datetime, lms_id: str, upload: str
    ) -> str:
        path = self.term.submissions / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, path)
        self.attempts.setdefault((lms_id, assignment), []).append((upload, when))
        self.term.files += 1
        return relative

    def canvas(self, person: Person, lab: str, notebook: nbformat.NotebookNode, when: datetime, *, to: str = "") -> str:
        """A Canvas download of ``person``'s file for ``lab``, handed in to ``to``'s assignment (default: ``lab``'s)."""
        self.attachment += 1
        late = "LATE_" if when > self.deadlines[to or lab] else ""
        again = "-1" if (person.canvas, to or lab) in self.attempts else ""
        name = _notebook_name(lab).replace(".ipynb", f"{again}.ipynb")
        relative = f"{person.login}_{late}{person.canvas}_{self.attachment}_{name}"
        return self.put(relative, notebook, to or lab, when, person.canvas, str(self.attachment))

    def moodle(
        self, person: Person, number: int, lab: str, notebook: nbformat.NotebookNode, when: datetime, name: str = ""
    ) -> str:
        full = f"{person.first} {person.last}"
        if person.first == DECOMPOSED:
            full = unicodedata.normalize("NFD", full)
        relative = f"{full}_{participant(lab, number)}_assignsubmission_file_/{name or _notebook_name(lab)}"
        return self.put(relative, notebook, lab, when, participant(lab, number), relative)


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
    assert all(deadlines.values())
    made = _Class(term, deadlines)  # type: ignore[arg-type]
    class_list = people()
    for number, person in enumerate(class_list[: len(NAMES)]):
        _regular(made, number, person)
    _cases(made, class_list)
    term.unknown = made.canvas(newcomer(), "11.2", solution("11.2"), made.when("11.2", 0))  # enrolled after the export
    _canvas_gradebook(term.roster, class_list)
    _canvas_gradebook(folder / ROSTER_AFTER, [*class_list, newcomer()])
    for lab in LABS:
        term.times[lab] = folder / times_file(lab)
        if lab in CANVAS_LABS:
            users = [p.canvas for p in class_list] + ([newcomer().canvas] if lab == "11.2" else [])
            _canvas_submissions(term.times[lab], lab, users, made.attempts)
        elif lab == "capstone":
            _pack_times(term.times[lab], made.attempts)
        else:
            _moodle_worksheet(term.times[lab], lab, class_list, made.attempts, example.lab(lab).points or 0)
    return term


def _regular(made: _Class, number: int, person: Person) -> None:
    """One of the 14: 3 labs, a reference or a mutant each, some late; Judith's first try and Alex's draft."""
    for k in range(3):
        lab = LABS[(number + k) % len(LABS)]
        kind = "mutant" if (number + k) % 3 == 0 else "reference"
        notebook = _mutant(lab, number) if kind == "mutant" else solution(lab)
        days = 1 + number % 3 if (number * 3 + k) % 5 == 0 else 0
        if lab in CANVAS_LABS:
            if number == 0 and k == 0:  # a first try (a mutant, on time), then a re-upload (-1) that counts
                made.canvas(person, lab, _mutant(lab, 1), made.when(lab, 0) - timedelta(hours=1))
                notebook, kind = solution(lab), "reference"
            made.canvas(person, lab, notebook, made.when(lab, days))
        else:
            if number == 1 and k == 2:  # a draft (a mutant) beside the notebook: one submission, one time: a tie
                made.moodle(person, number, lab, _mutant(lab, 2), made.when(lab, days), f"draft_{_notebook_name(lab)}")
                notebook, kind = solution(lab), "reference"  # the better of the tie counts until a decision
            made.moodle(person, number, lab, notebook, made.when(lab, days))
        made.term.expected[(person.id, lab)] = Counted(kind, days)


def _cases(made: _Class, class_list: list[Person]) -> None:
    """Issue 44's students (``CASES``), each handing in what their case needs."""
    term, first = made.term, len(NAMES)
    wei, wei2, sofia, omar, anna = class_list[first:]
    namesakes = []
    for number, person, kind in ((first, wei, "reference"), (first + 1, wei2, "mutant")):
        for lab in ("11.4", "11.5"):
            notebook = solution(lab) if kind == "reference" else _mutant(lab, number)
            namesakes.append(made.moodle(person, number, lab, notebook, made.when(lab, 0)))
            term.expected[(person.id, lab)] = Counted(kind, 0)
    term.cases["namesakes"] = (wei.id, wei2.id, *namesakes)
    own = made.canvas(sofia, "11.2", _mutant("11.2", 3), made.when("11.2", 0))  # on time, a mutant
    week = made.deadlines["11.2"] + timedelta(days=6, hours=20)  # in 11.3's assignment: on time there, 7 days late
    elsewhere = made.canvas(sofia, "11.2", solution("11.2"), week, to="11.3")
    term.expected[(sofia.id, "11.2")] = Counted("mutant", 0)  # hers until the course file decides
    term.cases["wrong assignment"] = (sofia.id, own, elsewhere)
    first_try = made.canvas(omar, "11.1", _mutant("11.1", 4), made.when("11.1", 0))
    resubmitted = made.canvas(omar, "11.1", solution("11.1"), made.when("11.1", 1))
    term.expected[(omar.id, "11.1")] = Counted("reference", 1)
    term.cases["resubmission"] = (omar.id, first_try, resubmitted)
    number = class_list.index(anna)
    stub = made.moodle(anna, number, "11.4", learner("11.4"), made.when("11.4", 0))
    again = _notebook_name("11.4").replace(".ipynb", " (1).ipynb")
    renamed = made.moodle(anna, number, "11.4", solution("11.4"), made.when("11.4", 0), again)
    term.expected[(anna.id, "11.4")] = Counted("reference", 0)
    term.cases["re-upload"] = (anna.id, stub, renamed)


def _canvas_gradebook(path: Path, class_list: list[Person]) -> None:
    """Grades → Export as Canvas writes it: sorted by sortable name, Points Possible first, the Test Student last."""
    labs = [f"Lab {lab} ({123400 + i})" for i, lab in enumerate(CANVAS_LABS, start=1)]
    scores = ["Current Score", "Unposted Current Score", "Final Score", "Unposted Final Score"]
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *labs, *scores]]
    rows.append(["    Points Possible", "", "", "", "", *["10.00"] * len(labs), *["(read only)"] * len(scores)])
    for p in sorted(class_list, key=lambda p: (p.last, p.first, p.id)):
        rows.append([f"{p.last}, {p.first}", p.canvas, p.id, p.email, p.section, *[""] * (len(labs) + len(scores))])
    rows.append(["Student, Test", "48290", "", "", "Section A", *[""] * (len(labs) + len(scores))])
    with path.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(rows)


def _canvas_submissions(
    path: Path, lab: str, users: list[str], attempts: dict[tuple[str, str], list[tuple[str, datetime]]]
) -> None:
    """GET …/assignments/:id/submissions?include[]=submission_history, saved from the browser (``while(1);`` in
    front): each attempt with its time and attachment. Lab 11.1's in pages of ``PAGE``, a folder of them."""
    assignment = 3310 + CANVAS_LABS.index(lab) + 1
    objects = []
    for number, user in enumerate(users):
        uploads = sorted(attempts.get((user, lab), []), key=lambda upload: upload[1])
        history = [
            {"attempt": n, "submitted_at": _utc(when), "attachments": [{"id": int(ident), "display_name": "lab.ipynb"}]}
            for n, (ident, when) in enumerate(uploads, start=1)
        ]
        latest = history[-1] if history else None
        objects.append(
            {
                "id": 70000 + 100 * assignment + number,
                "assignment_id": assignment,
                "user_id": int(user),
                "submitted_at": latest["submitted_at"] if latest else None,
                "workflow_state": "submitted" if latest else "unsubmitted",
                "submission_type": "online_upload" if latest else None,
                "attempt": latest["attempt"] if latest else None,
                "attachments": latest["attachments"] if latest else [],
                "submission_history": history,
                "score": None,
                "grade": None,
            }
        )
    if lab != "11.1":
        path.write_text("while(1);" + json.dumps(objects, separators=(",", ":")), encoding="utf-8")
        return
    path.mkdir()
    for page, start in enumerate(range(0, len(objects), PAGE), start=1):
        text = "while(1);" + json.dumps(objects[start : start + PAGE], separators=(",", ":"))
        (path / f"page-{page}.json").write_text(text, encoding="utf-8")


def _utc(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _moodle_worksheet(
    path: Path,
    lab: str,
    class_list: list[Person],
    attempts: dict[tuple[str, str], list[tuple[str, datetime]]],
    points: float,
) -> None:
    """View all submissions → Download grading worksheet: times in the downloading user's zone, ``-`` for none;
    one time per submission (its last change), the email beside the full name (the site's identity field)."""
    header = [
        "Identifier", "Full name", "Email address", "Status", "Grade", "Maximum grade", "Grade can be changed",
        "Last modified (submission)", "Online text", "Last modified (grade)", "Feedback comments",
    ]  # fmt: skip
    rows = [header]
    for number, p in enumerate(class_list):
        uploads = attempts.get((participant(lab, number), lab), [])
        when = max((upload[1] for upload in uploads), default=None)
        local = when.astimezone(ZONE) if when else None
        shown = f"{local:%A}, {local.day} {local:%B %Y}, {local.hour % 12 or 12}:{local:%M %p}" if local else "-"
        status = "Submitted for grading" if when else "No submission"
        rows.append([f"Participant {participant(lab, number)}", f"{p.first} {p.last}", p.email, status, "",
                     f"{points:.2f}", "Yes", shown, "", "-", ""])  # fmt: skip
    with path.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(rows)


def _pack_times(path: Path, attempts: dict[tuple[str, str], list[tuple[str, datetime]]]) -> None:
    """The capstone's times as an export of the pack's form writes them: ``file,submitted_at``, names in NFC (as
    typed names and LMS exports are), whatever form the folders on disk have."""
    rows = [["file", "submitted_at"]]
    for (_, assignment), uploads in sorted(attempts.items()):
        if assignment == "capstone":
            rows += [[unicodedata.normalize("NFC", file), when.isoformat()] for file, when in uploads]
    with path.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows(rows)


def stand_in(path: Path, options: object, *, root: str | None = None) -> object:
    """A grade without a kernel, for the kernel-free run of the class (``test_term.py``): a lab's 4 tests all passed
    by the course's solution, none by the learner's stub, half by anything else (a mutant); who and which lab as
    grading decides. Module-level, so a spawned worker imports it."""
    from course_grader.intake.cells import exercise_sources
    from course_grader.intake.identity import submission_name
    from course_grader.intake.notebook import read_submission
    from course_grader.intake.roster import attribute
    from course_grader.judging.verdicts import GradeResult, TestResult

    student, source, notes = attribute(path, root, options.identity.names)  # type: ignore[attr-defined]
    submission = read_submission(path)
    cells = submission.exercise_sources
    passed = (
        4
        if cells == exercise_sources(solution(submission.lab.id))
        else 0
        if cells == exercise_sources(learner(submission.lab.id))
        else 2
    )
    tests = tuple(
        TestResult(name=f"t{n}", number=n, lab=submission.lab.id, score=float(i < passed))
        for i, n in enumerate(("1", "2", "H1", "H2"))
    )
    return GradeResult(
        submission=submission_name(path, root),
        student=student,
        student_source=source,
        lab=submission.lab.id,
        status="ok",
        tests=tests,
        seed=options.judging.seed,  # type: ignore[attr-defined]
        budget=240,
        notes=notes,
    )


def grading_without_kernels(monkeypatch: Any) -> None:
    """``course-grade``'s batch graded by ``stand_in`` for the rest of the test: the CLI end to end, no kernel."""
    from course_grader.batch.batch import grade_folder
    from course_grader.cli import grade_batch

    def graded(*args: Any, **options: Any) -> Any:
        return grade_folder(*args, **options, grade=stand_in)  # type: ignore[arg-type]  # it returns a GradeResult

    monkeypatch.setattr(grade_batch, "grade_folder", graded)


Run = Callable[..., str]
"""``course-grade ARGUMENTS`` in the term's folder: what it printed (stdout, then stderr); it fails on a non-zero exit."""


def table(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def walk(term: Term, run: Run, jobs: str = "2") -> dict[str, str]:
    """The term through grade → report → rescore → a roster change and regrade → merge → feedback → both
    gradebooks, every case checked on the way; returns each case's note as the CSV prints it."""
    at = term.folder
    run(term.submissions, "--course", term.course, "--out", at / "grades.csv", "-j", jobs, "--no-progress",
        "--feedback", at / "feedback")  # fmt: skip
    notes = graded_cases(term, {row["file"]: row for row in table(at / "grades.csv")})
    report = run("report", at / "grades.csv", "-o", at / "report.html")
    assert "and 1 of no roster student (unknown)" in report, report
    after = _course_after(term)
    rescored = run("rescore", at / "grades.csv", "--course", after, "-o", at / "rescored.csv")
    _sofia, own, elsewhere = term.cases["wrong assignment"]
    lines = {line.split(": ", 1)[0]: line for line in rescored.splitlines()}
    assert "; now counts (" in lines[elsewhere] and "this one counts (the course file's decision: " in lines[elsewhere]
    assert "; no longer counts (" in lines[own] and "no submission; the gradebook gets" in rescored, rescored
    rows = {row["file"]: row for row in table(at / "rescored.csv")}
    notes["the instructor's decision (rescore)"] = rows[elsewhere]["notes"]
    enrolled = _course_after(term, roster=ROSTER_AFTER)
    run(term.submissions, "--course", enrolled, "--only", f"student:{newcomer().id}", "--out", at / "regrade.csv",
        "--no-progress")  # fmt: skip
    merged = run("merge", at / "rescored.csv", at / "regrade.csv", "-o", at / "term.csv")
    assert "was graded under another roster than" in merged and f"replaced {term.unknown!r}" in merged, merged
    rows = {row["file"]: row for row in table(at / "term.csv")}
    assert rows[term.unknown]["student"] == newcomer().id and len({r["course"] for r in rows.values()}) == 1
    assert all(f"student {term.unknown.split('_')[0]}" not in row["notes"] for row in rows.values())  # no stale id
    notes["a roster change and its regrade (merge)"] = next(line for line in merged.splitlines() if "roster" in line)
    _published(term, run, enrolled, rows)
    return notes


def graded_cases(term: Term, rows: dict[str, dict[str, str]]) -> dict[str, str]:
    """Each case as the grades CSV shows it; the note of each, by case."""
    notes = {}
    assert [file for file, row in rows.items() if row["student_from"].startswith("unknown")] == [term.unknown]
    _sofia, own, elsewhere = term.cases["wrong assignment"]
    assert (rows[own]["counts"], rows[elsewhere]["counts"]) == ("True", "False")
    assert (rows[elsewhere]["handed_in"], rows[elsewhere]["late"], rows[own]["late"]) == ("11.3", "7 days", "")
    assert "; conflict: " in rows[own]["notes"] and "; conflict: " in rows[elsewhere]["notes"]
    notes["a file handed in to another lab's assignment"] = rows[elsewhere]["notes"]
    _, first, again = term.cases["resubmission"]
    assert (rows[first]["late"], rows[first]["counts"], rows[again]["late"], rows[again]["counts"]) == (
        "",
        "False",
        "1 day",
        "True",
    )
    notes["a Canvas resubmission with its attempt history"] = rows[again]["notes"]
    _, stub, renamed = term.cases["re-upload"]
    assert rows[renamed]["counts"] == "True" and "the later upload of one name" in rows[renamed]["notes"]
    assert rows[stub]["counts"] == "False" and "its own time is unknown" in rows[stub]["notes"]
    notes["tied times, ordered by Moodle's renaming"] = rows[renamed]["notes"]
    draft = next(row for file, row in rows.items() if "/draft_" in file)
    assert draft["counts"] == "False" and "; tie: 2 files have one time" in draft["notes"]
    notes["tied times, nothing to order them"] = draft["notes"]
    wei, wei2, *namesakes = term.cases["namesakes"]
    assert [rows[file]["student"] for file in namesakes] == [wei, wei, wei2, wei2], namesakes
    assert all("from the grading worksheet lab_11_" in rows[file]["student_from"] for file in namesakes)
    notes["two students named Wei Zhang"] = f"{rows[namesakes[2]]['student_from']}: {rows[namesakes[2]]['notes']}"
    decomposed = [row for file, row in rows.items() if not unicodedata.is_normalized("NFC", file)]
    assert {row["lab"] for row in decomposed} == {"11.4", "11.5", "capstone"}
    assert {row["submitted_from"] for row in decomposed if row["lab"] == "capstone"} == {"manifest"}
    assert {row["submitted_from"] for row in rows.values() if row["lab"] == "11.1"} == {"canvas-submissions"}
    return notes


def _course_after(term: Term, roster: str = "") -> Path:
    """The course file after grading: an extension, an appeal, an override for a lab handed nothing in for, the
    decision that Sofia's notebook in the 11.3 assignment counts; with ``roster``, the roster after too."""
    late = next(key for key, counted in term.expected.items() if counted.days_late and counted.kind == "reference")
    appeal = next(key for key, counted in term.expected.items() if counted.kind == "mutant" and key != late)
    sofia, _, elsewhere = term.cases["wrong assignment"]
    text = term.course.read_text(encoding="utf-8") + (
        f'\n[[extensions]]\nstudent = "{late[0]}"\nlab = "{late[1]}"\n'
        'deadline = 2026-12-31T23:59:00+01:00\nreason = "medical certificate"\n'
        f'\n[[overrides]]\nstudent = "{appeal[0]}"\nlab = "{appeal[1]}"\nscore = 7.5\nreason = "appeal upheld"\n'
        f'\n[[overrides]]\nstudent = "{term.cases["namesakes"][0]}"\nlab = "11.1"\nscore = 6\n'
        'reason = "oral exam in place of the lab"\n'
        f'\n[[decisions]]\nstudent = "{sofia}"\nlab = "11.2"\ncounts = "{elsewhere}"\n'
        'reason = "uploaded to the 11.3 assignment by mistake; late by 11.2\'s deadline"\n'
    )
    if roster:
        text = text.replace(f'roster = "{ROSTER}"', f'roster = "{roster}"')
    path = term.course.with_name(f"course-{'enrolled' if roster else 'after'}.toml")
    path.write_text(text, encoding="utf-8")
    return path


def _published(term: Term, run: Run, course: Path, rows: dict[str, dict[str, str]]) -> None:
    """The pages again (the stale one gone, a zip per assignment) and both gradebooks from the merged term."""
    import zipfile

    at = term.folder
    stale = sorted(page.name for page in (at / "feedback").glob("doejane*.html"))
    assert stale, "the unknown student's page, before the roster change"
    for lms in ("canvas", "moodle"):
        said = run("feedback", at / "term.jsonl", "-o", at / "feedback", "--lms-zip", lms)
        assert not any((at / "feedback" / page).exists() for page in stale), said
        zips = sorted(path.name for path in (at / "feedback").glob(f"feedback-{lms}-*.zip"))
        labs = CANVAS_LABS if lms == "canvas" else ("11.4", "11.5", "capstone")
        assert zips == sorted(
            f"feedback-{lms}-{'capstone' if lab == 'capstone' else 'lab_' + lab.replace('.', '_')}.zip" for lab in labs
        ), zips
    _sofia, _, elsewhere = term.cases["wrong assignment"]
    with zipfile.ZipFile(at / "feedback" / "feedback-canvas-lab_11_3.zip") as archive:  # her 11.2 page: 11.3's upload
        assert any(name.startswith(elsewhere.split("_lab_")[0]) for name in archive.namelist())
    for lms in ("canvas", "moodle"):
        run("export", at / "term.csv", "--course", course, "--format", lms, "-o", at / f"gradebook-{lms}.csv")
    _gradebook(term, course, table(at / "gradebook-canvas.csv"))


def _gradebook(term: Term, course_path: Path, book: list[dict[str, str]]) -> None:
    """Every roster student's cell as the class was made: references full marks less the late penalty, mutants
    less, the exceptions as the course file says."""
    from course_grader.course.course_file import load_course

    course = load_course(course_path)
    assert {row["Section"] for row in book[1:]} == {"Section A", "Section B"}
    cells = {(row["SIS User ID"], lab): row[course.column(lab)] for row in book[1:] for lab in LABS}
    exceptions = {(o.student, o.lab): o.score for o in course.settings.overrides}
    exceptions |= {(e.student, e.lab): course.lab(e.lab).points or 0 for e in course.settings.extensions}
    sofia = term.cases["wrong assignment"][0]
    exceptions |= {(sofia, "11.2"): 5.0, (newcomer().id, "11.2"): 10.0}  # the decision: 7 days late; the newcomer
    for (student, lab), cell in cells.items():
        points = course.lab(lab).points or 0
        if (student, lab) in exceptions:
            assert float(cell) == exceptions[(student, lab)], (student, lab, cell)
        elif (counted := term.expected.get((student, lab))) is None:
            assert cell == "", (student, lab, cell)
        elif counted.kind == "reference":
            assert float(cell) == points * (1 - min(50, 10 * counted.days_late) / 100), (student, lab, cell)
        else:
            assert 0 <= float(cell) < points * (1 - min(50, 10 * counted.days_late) / 100), (student, lab, cell)


def commands(term: Term) -> list[str]:
    """The documented commands for this class (docs/grading.md): grade, rescore, a regrade, merge, feedback, export."""
    at = term.folder
    return [
        f"course-grade {term.submissions} --course {term.course} --out {at}/grades.csv -j 2 --feedback {at}/feedback",
        f"course-grade report {at}/grades.csv -o {at}/report.html",
        f"course-grade rescore {at}/grades.csv --course {term.course} -o {at}/rescored.csv",
        f"course-grade {term.submissions} --course {term.course} --only student:ID --out {at}/regrade.csv",
        f"course-grade merge {at}/rescored.csv {at}/regrade.csv -o {at}/term.csv",
        f"course-grade feedback {at}/term.jsonl -o {at}/feedback --lms-zip canvas",
        f"course-grade export {at}/term.csv --course {term.course} --format canvas -o {at}/gradebook-canvas.csv",
        f"course-grade export {at}/term.csv --course {term.course} --format moodle -o {at}/gradebook-moodle.csv",
    ]


if __name__ == "__main__":
    made = build(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("term-class"))
    print(f"wrote {made.files} submissions for {len(NAMES) + len(CASES)} students to {made.submissions}")
    print(f"the LMS's files: {made.roster} and {', '.join(str(p) for p in made.times.values())}")
    print("\n".join(commands(made)))
