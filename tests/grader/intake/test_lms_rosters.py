"""The roster as the LMS exports it (issue 29): Canvas's gradebook, Moodle's participants and grades, NFD names.

The sample files are the ones docs/grading.md shows (``docs/examples/``): a
Canvas export with its ``Points Possible`` row and Student View's Test
Student, and Moodle's two exports. No kernel runs.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from pathlib import Path
from typing import Literal

import pandas as pd
import pytest

from course_grader.intake.roster import Names, RosterError, attribute, load_roster
from course_grader.publish import gradebook

Form = Literal["NFC", "NFD"]
EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
CANVAS_FILES = (
    "smithjudy_48213_9981299_lab_11_3.ipynb",
    "smithjudy_LATE_48213_9981377_lab_11_3-1.ipynb",
    "milleralex_48214_5_lab_11_2.ipynb",
    "chenbo_48215_6_lab_11_1.ipynb",
)


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_text(text, encoding=encoding)
    return path


def who(path: str, names: Names) -> tuple[str, str]:
    student, source, _ = attribute(f"/s/{path}", "/s", names)
    return student, source


def test_canvas_gradebook_export_is_the_class_without_points_possible_or_the_test_student() -> None:
    roster = load_roster(EXAMPLES / "canvas-gradebook.csv")
    assert [s.id for s in roster.students] == ["jsmith", "amiller", "bchen"]
    judy = roster.students[0]
    assert (judy.name, judy.email, judy.section) == ("Judy Smith", "judith.smith@example.edu", "Section A")
    assert judy.aliases == ("48213", "smithjudy")  # the Canvas user id, and the sortable name as downloads write it


def test_every_canvas_download_name_finds_its_student_in_canvas_own_export() -> None:
    """Before, a roster of id, name and email matched none of them: the Canvas user id had to be scripted in."""
    names = Names.of("canvas", None, load_roster(EXAMPLES / "canvas-gradebook.csv"))
    found = [who(name, names) for name in CANVAS_FILES]
    assert [student for student, _ in found] == ["jsmith", "jsmith", "amiller", "bchen"]
    assert found[0][1] == "Canvas name (48213) on the roster"


def test_a_canvas_roster_round_trips_through_the_canvas_gradebook_export() -> None:
    """The export's ID is the Canvas user id again and its SIS User ID the roster id: Canvas matches every row."""
    roster = load_roster(EXAMPLES / "canvas-gradebook.csv")
    grades = pd.DataFrame(
        {
            "student": ["jsmith"],
            "student_from": ["Canvas name (48213) on the roster"],
            "file": [CANVAS_FILES[0]],
            "lab": ["11.3"],
            "score": [7.5],
            "counts": [True],
            "status": ["ok"],
            "notes": [""],
        }
    )
    book = gradebook.build(grades, roster)
    rows = list(csv.DictReader(io.StringIO(book.text)))
    assert [(r["ID"], r["SIS User ID"], r["SIS Login ID"]) for r in rows] == [
        ("", "", ""),  # the Points Possible row, as Canvas's own export writes it
        ("48213", "jsmith", "judith.smith@example.edu"),
        ("48214", "amiller", "alex.miller@example.edu"),
        ("48215", "bchen", "bo.chen@example.edu"),
    ]


def test_a_canvas_export_as_downloaded_with_its_byte_order_mark_and_a_student_without_sis_id(tmp_path: Path) -> None:
    text = (
        "Student,ID,SIS User ID,SIS Login ID,Integration ID,Section,Lab 11.3 (9)\n"
        "    Points Possible,,,,,,10.00\n"
        '"Kato, Hana",51001,,hkato,,Section B,\n'
        '"Ivic, Goran",51002,,,,Section B,\n'
        "Test Student,51099,,,,Section B,\n"
    )
    roster = load_roster(write(tmp_path / "export.csv", text, encoding="utf-8-sig"))
    assert [(s.id, s.name, s.aliases) for s in roster.students] == [
        ("hkato", "Hana Kato", ("51001", "katohana")),  # no SIS User ID: the login is the id
        ("51002", "Goran Ivic", ("ivicgoran",)),  # no SIS ids at all: the Canvas user id is
    ]


def test_moodle_participants_and_grades_exports_are_read_by_their_id_number() -> None:
    for name in ("moodle-participants.csv", "moodle-grades.csv"):
        roster = load_roster(EXAMPLES / name)
        assert [(s.id, s.name, s.email) for s in roster.students] == [
            ("jsmith", "Judith Smith", "judith.smith@example.edu"),
            ("amiller", "Alex Miller", "alex.miller@example.edu"),
            ("bchen", "Bo Chen", "bo.chen@example.edu"),
        ], name
        names = Names.of("moodle", None, roster)
        assert who("Alex Miller_55102_assignsubmission_file_/lab_11_4.ipynb", names) == (
            "amiller",
            "Moodle name (Alex Miller) on the roster",
        )


@pytest.mark.parametrize("delimiter", [";", "\t"])
def test_moodle_grades_export_with_the_separator_the_instructor_chose(tmp_path: Path, delimiter: str) -> None:
    text = (EXAMPLES / "moodle-grades.csv").read_text(encoding="utf-8").replace(",", delimiter)
    roster = load_roster(write(tmp_path / "grades.txt", text))
    assert [s.id for s in roster.students] == ["jsmith", "amiller", "bchen"]


def test_a_moodle_participant_without_an_id_number_is_known_by_username_or_email(tmp_path: Path) -> None:
    text = (
        "First name,Last name,ID number,Username,Email address\n"
        "Lea,Novak,,lnovak,lea.novak@example.edu\n"
        "Mika,Virtanen,,,mika@example.edu\n"
    )
    roster = load_roster(write(tmp_path / "participants.csv", text))
    assert [(s.id, s.aliases) for s in roster.students] == [("lnovak", ()), ("mika@example.edu", ())]


@pytest.mark.parametrize("roster_form", ["NFC", "NFD"])
@pytest.mark.parametrize("file_form", ["NFC", "NFD"])
def test_a_name_in_either_unicode_form_finds_the_same_student(
    tmp_path: Path, roster_form: Form, file_form: Form
) -> None:
    """A Moodle zip unpacked on a Mac names its folders in NFD; the roster usually has NFC. Case aside too."""
    text = f"First name,Last name,ID number,Email address\n{unicodedata.normalize(roster_form, 'José,Núñez')},jn01,\n"
    names = Names.of("moodle", None, load_roster(write(tmp_path / "participants.csv", text)))
    name = unicodedata.normalize(file_form, "José Núñez")
    assert who(f"{name}_77_assignsubmission_file_/lab_11_3.ipynb", names)[0] == "jn01"
    assert who(f"{name.upper()}_77_assignsubmission_file_/lab_11_3.ipynb", names)[0] == "jn01"
    plain = Names.of("plain", None, load_roster(write(tmp_path / "participants.csv", text)))
    assert who(f"{unicodedata.normalize(file_form, 'josé núñez')}/lab_11_3.ipynb", plain)[0] == "jn01"


def test_an_unrecognised_header_is_refused_with_what_it_has_and_what_is_read(tmp_path: Path) -> None:
    with pytest.raises(RosterError) as refused:
        load_roster(write(tmp_path / "r.csv", "Name,Mail\nx,y\n"))
    message = str(refused.value)
    assert "needs a header with at least the column id" in message and message.endswith("its header has Name, Mail")
    assert "Canvas's gradebook export (Student, ID, SIS User ID" in message
    assert "Moodle's participants or grades export (First name, Last name, ID number" in message


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('Student,ID,SIS User ID,Section\n"Kato, Hana",,,B\n', "line 2: 'Kato, Hana' has no SIS User ID"),
        ("Student,ID,SIS User ID,Section\nA,1,s1,B\nB,2,s1,B\n", "line 3: the id 's1' is there twice"),
        ("First name,Last name,ID number,Email address\nLea,Novak,,\n", "line 2: 'Lea Novak' has no ID number"),
        (b"id,name\nx,Jos\xe9\n", "not UTF-8 text"),
    ],
)
def test_a_bad_lms_export_is_refused_naming_the_line(tmp_path: Path, text: str | bytes, says: str) -> None:
    path = tmp_path / "r.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(RosterError, match=says):
        load_roster(path)
