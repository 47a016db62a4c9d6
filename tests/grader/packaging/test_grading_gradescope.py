"""Gradescope mode keeps the bubblewrap path's guarantees (docs/grading.md, "Publishing to Gradescope").

The fast tests cover the parts one by one: which upload is graded, the bundle's
secret, the learner's account (its processes killed, its leftovers removed,
what it can read). The slow ones are dry runs of real bundles (``setup.sh``
and ``run_autograder`` as Gradescope runs them, see ``gradescope_dry_run.py``)
with an honest solution, a submission that imports the reference from the
installed package, a detached process that rewrites ``results.json``, two
uploaded notebooks, and the capstone's solution. Run as root, as Gradescope does.
``course-grade dry-run`` runs them in a sandbox that sees only the bundle: it
grades where another readable checkout stops the dry run by hand.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
import zipfile
from pathlib import Path

import nbformat
import pytest
from gradescope_dry_run import Autograder, dry_run_folder, public_folder, set_up, shared_interpreter
from grading_corpus import edited, learner, solution
from mutants import MUTANTS
from term_secrets import OTHER

from course_grader import GradeOptions, JudgingSettings, grade_notebook, load_course, score
from course_grader.cli import app as cli
from course_grader.intake.cells import setup_sources
from course_grader.intake.lab_templates import find_template
from course_grader.intake.upload import choose, shown, uploaded
from course_grader.packaging.bundle import SECRET, build_bundle, run_autograder
from course_grader.packaging.wheel import requirements
from course_grader.sandbox.learner_account import (
    LearnerAccount,
    exposed,
    kill_all,
    processes_of,
    remove_leftovers,
    unused_account,
)
from course_lib.teaching import lab_registry

pytestmark = pytest.mark.sandboxed  # make test-sandboxed: real sandboxes, cgroups, Gradescope dry runs

ROOT = Path(__file__).resolve().parents[3]
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="Gradescope runs the autograder as root")


def _notebook(folder: Path, name: str, notebook: object) -> Path:
    path = folder / name
    nbformat.write(notebook, path)
    return path


# --- which upload is graded ---------------------------------------------------------------


def test_the_notebook_for_this_lab_is_graded_among_others(tmp_path: Path) -> None:
    _notebook(tmp_path, "a_lab_11_2_group_interactions.ipynb", learner("11.2"))
    right = _notebook(tmp_path, "lab_11_3_build_context.ipynb", solution("11.3"))
    (tmp_path / "notes.txt").write_text("not a notebook")
    assert choose(uploaded(tmp_path), lab_registry.LABS["11.3"]) == right


def test_two_notebooks_for_the_lab_are_refused_with_what_to_upload(tmp_path: Path) -> None:
    """The alphabetically first (a stub here) is never picked silently."""
    _notebook(tmp_path, "a_draft.ipynb", learner("11.3"))
    _notebook(tmp_path, "lab_11_3_build_context.ipynb", solution("11.3"))
    refusal = choose(uploaded(tmp_path), lab_registry.LABS["11.3"])
    assert isinstance(refusal, str)
    assert "a_draft.ipynb (Lab 11.3)" in refusal and "lab_11_3_build_context.ipynb (Lab 11.3)" in refusal
    assert "2 are the Lab 11.3 notebook" in refusal
    assert "Upload only your Lab 11.3 notebook (lab_11_3_build_context.ipynb)" in refusal


def test_no_notebook_for_the_lab_among_several_is_refused(tmp_path: Path) -> None:
    _notebook(tmp_path, "lab_11_2_group_interactions.ipynb", learner("11.2"))
    _notebook(tmp_path, "scratch.ipynb", nbformat.v4.new_notebook())
    refusal = choose(uploaded(tmp_path), lab_registry.LABS["11.3"])
    assert isinstance(refusal, str) and "none is the Lab 11.3 notebook" in refusal
    assert "scratch.ipynb (names no lab)" in refusal and "(Lab 11.2)" in refusal


def test_a_lone_notebook_is_graded_and_the_capstone_is_found_by_its_name(tmp_path: Path) -> None:
    lone = _notebook(tmp_path, "mine.ipynb", nbformat.v4.new_notebook())
    assert choose(uploaded(tmp_path), lab_registry.LABS["11.3"]) == lone
    capstone = solution("capstone")
    capstone.metadata.pop("course", None)
    named = _notebook(tmp_path, "02_lifecycle_capstone.ipynb", capstone)
    assert choose(uploaded(tmp_path), lab_registry.LABS["capstone"]) == named


def test_links_and_fifos_are_listed_never_opened(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("4242424242")
    (tmp_path / "up").mkdir()
    (tmp_path / "up" / "lab_11_3_link.ipynb").symlink_to(secret)
    os.mkfifo(tmp_path / "up" / "lab_11_3_fifo.ipynb")  # opening it would block until a writer comes
    signal.alarm(20)
    try:
        refusal = choose(uploaded(tmp_path / "up"), lab_registry.LABS["11.3"])
    finally:
        signal.alarm(0)
    assert isinstance(refusal, str) and "4242424242" not in refusal
    assert refusal.count("not a regular file") == 2 and "lab_11_3_fifo.ipynb" in refusal


def test_file_names_are_shown_printable_and_short() -> None:
    assert shown("a\nb\x1b[31m.ipynb") == "a?b?[31m.ipynb"
    assert len(shown("x" * 500)) == 80


def test_autograder_refuses_several_notebooks_in_results_json(tmp_path: Path) -> None:
    (tmp_path / "submission").mkdir()
    _notebook(tmp_path / "submission", "a_draft_lab_11_3.ipynb", learner("11.3"))
    _notebook(tmp_path / "submission", "lab_11_3_build_context.ipynb", solution("11.3"))
    result = run_autograder(lab_registry.LABS["11.3"], root=tmp_path)
    data = json.loads((tmp_path / "results" / "results.json").read_text())
    assert result.status == "error" and data["score"] == 0 and len(data["tests"]) == 7
    assert "a_draft_lab_11_3.ipynb" in data["output"] and "Upload only your Lab 11.3 notebook" in data["output"]


# --- the bundle's secret ---------------------------------------------------------------------


def test_the_secret_is_in_a_root_only_file_and_on_no_command_line(tmp_path: Path) -> None:
    bundle = build_bundle(lab_registry.LABS["11.3"], tmp_path / "a.zip", seed=OTHER)
    with zipfile.ZipFile(bundle) as archive:
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        assert archive.read(SECRET).decode().strip() == OTHER
        assert modes[SECRET] == 0o600
        script = archive.read("run_autograder").decode()
        assert OTHER not in script and "--seed" not in script
        assert archive.read("requirements.txt").decode().splitlines() == requirements(ROOT)
    with (
        zipfile.ZipFile(build_bundle(lab_registry.LABS["11.3"], tmp_path / "b.zip")) as one,
        zipfile.ZipFile(build_bundle(lab_registry.LABS["11.3"], tmp_path / "c.zip")) as other,
    ):
        assert one.read(SECRET) != other.read(SECRET)


def test_bundle_tells_the_instructor_the_secret_and_how_to_regrade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["bundle", "--lab", "capstone", "-o", str(tmp_path / "c.zip"), "--seed", OTHER]) == 0
    said = capsys.readouterr().out
    assert "The capstone" in said and OTHER in said and "source/secret" in said
    assert f"course-grade SUBMISSION.ipynb --lab capstone --seed {OTHER}" in said


def test_the_printed_table_shows_no_seed_and_no_hidden_feedback() -> None:
    """run_autograder's stdout, which an instructor may make visible: what learners may see at once, no more."""
    from course_grader.judging.verdicts import GradeResult, TestResult, format_table
    from course_grader.packaging.bundle import for_stdout

    tests = (
        TestResult(name="visible", number="7", lab="11.3", score=0, output="visible feedback"),
        TestResult(
            name="generated", number="H1", lab="11.3", score=0, output="R12: the first failing session", hidden=True
        ),
    )
    result = GradeResult(submission="s.ipynb", student="submission", lab="11.3", status="ok", tests=tests, seed=OTHER)
    assert "R12: the first failing session" in format_table(result)
    shown_ = format_table(for_stdout(result))
    assert "visible feedback" in shown_ and "hidden · generated" in shown_
    assert "R12: the first failing session" not in shown_ and OTHER not in shown_


def test_a_bundle_without_its_secret_grades_nothing(tmp_path: Path) -> None:
    (tmp_path / "submission").mkdir()
    _notebook(tmp_path / "submission", "lab_11_3_build_context.ipynb", solution("11.3"))
    result = run_autograder(lab_registry.LABS["11.3"], root=tmp_path)
    assert result.status == "error" and result.score == 0
    assert "no usable secret" in json.loads((tmp_path / "results" / "results.json").read_text())["output"]
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / SECRET).write_text("20261001\n")  # an older bundle's number, or one a person typed
    result = run_autograder(lab_registry.LABS["11.3"], root=tmp_path)
    output = json.loads((tmp_path / "results" / "results.json").read_text())["output"]
    assert result.status == "error" and "no usable secret" in output and "a date a person picks" in output


@as_root
def test_an_autograder_the_learner_could_read_refuses_to_grade(tmp_path: Path) -> None:
    """This checkout's venv: course_lib importable from the checkout (or Python not runnable by another user)."""
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / SECRET).write_text(f"{OTHER}\n")
    (tmp_path / "submission").mkdir()
    _notebook(tmp_path / "submission", "lab_11_3_build_context.ipynb", solution("11.3"))
    result = run_autograder(lab_registry.LABS["11.3"], root=tmp_path)
    assert result.status == "error" and result.score == 0 and result.seed == OTHER
    output = json.loads((tmp_path / "results" / "results.json").read_text())["output"]
    assert "the autograder is not set up" in output and OTHER not in output


# --- the learner's account ------------------------------------------------------------------


@as_root
def test_kill_all_reaches_a_process_that_left_the_session(tmp_path: Path) -> None:
    account = unused_account()
    assert account.uid not in range(61000, 64000)  # the bubblewrap path's uids
    marker = f"course-grade-detached-{uuid.uuid4().hex[:8]}"
    detached = subprocess.Popen(
        ["/bin/sh", "-c", f"sleep 120; : {marker}"],
        user=account.uid,
        group=account.gid,
        extra_groups=[],
        start_new_session=True,
        cwd="/",
    )
    left = Path("/tmp") / f"{marker}.txt"
    left.write_text("left behind")
    os.chown(left, account.uid, account.gid)
    time.sleep(0.2)
    assert detached.pid in processes_of(account.uid)
    kill_all(account)
    assert detached.wait(timeout=10) == -signal.SIGKILL and processes_of(account.uid) == []
    remove_leftovers(account)
    assert not left.exists()


@as_root
def test_exposed_says_what_the_account_can_reach(tmp_path: Path) -> None:
    """A python whose site has course_lib (this checkout) on its path is reported, and so is a readable file."""
    interpreter = shared_interpreter()
    if interpreter is None:
        pytest.skip("no Python runnable by another user here")
    folder = public_folder("course-grade-exposed-")
    try:
        subprocess.run([interpreter, "-m", "venv", "--without-pip", str(folder / "venv")], check=True)
        python = folder / "venv" / "bin" / "python"
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        Path(purelib, "checkout.pth").write_text(f"{ROOT}\n")
        readable, private = folder / "readable", folder / "private"
        readable.write_text("x")
        private.write_text("x")
        private.chmod(0o600)
        found = exposed(unused_account(), str(python), [readable, private])
        assert found[0] == f"course_lib imports from {ROOT / 'course_lib'}"
        assert found[1:] == [f"{readable} is readable"]
    finally:
        shutil.rmtree(folder)


def test_an_account_is_never_root() -> None:
    from course_grader.sandbox.learner_kernel import main

    with pytest.raises(SystemExit):
        main(["--uid", "0", "--gid", "0", "--homes", "/tmp", "--", "true"])
    assert LearnerAccount(64100, 64100).uid != 0


# --- the capstone's dependencies -------------------------------------------------------------


def _closure(requirements_: list[str]) -> set[str]:
    """Distributions ``requirements_`` install here, with theirs (markers evaluated, no extras)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found: set[str] = set()
    pending = [Requirement(text) for text in requirements_]
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        if name in found or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        found.add(name)
        pending.extend(Requirement(text) for text in importlib.metadata.requires(requirement.name) or [])
    return found


def test_what_grading_installs_covers_every_import_of_every_labs_setup() -> None:
    """Each lab's setup cells, run in a fresh interpreter: every module they load comes from the base dependencies.

    The grader runs these cells as the learner's notebook does, so what they import
    (directly, or through course_lib) must be in the wheel's Requires-Dist: the
    capstone's plots need matplotlib on a base install and in the bundle.
    """
    from packaging.utils import canonicalize_name

    installed = _closure(requirements(ROOT))
    owners = importlib.metadata.packages_distributions()
    for lab in lab_registry.LABS:
        setup = "\n".join(setup_sources(find_template(lab_registry.LABS[lab])))
        code = (
            f"import sys, json\nbefore = set(sys.modules)\nexec(compile({setup!r}, 'setup', 'exec'), {{}})\n"
            "print(json.dumps(sorted({name.split('.')[0] for name in set(sys.modules) - before})))"
        )
        finished = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "MPLBACKEND": "Agg"},
            timeout=300,
        )
        assert finished.returncode == 0, f"{lab}: {finished.stderr[-2000:]}"
        loaded = json.loads(finished.stdout.strip().splitlines()[-1])
        missing = {
            module: owners[module]
            for module in loaded
            if module in owners
            and module not in sys.stdlib_module_names
            and module != "course_lib"
            and not any(canonicalize_name(dist) in installed for dist in owners[module])
        }
        assert not missing, f"{lab}'s setup loads modules outside the base dependencies: {missing}"


# --- dry runs of real bundles ---------------------------------------------------------------

SECRET_SEED = OTHER


@pytest.fixture(scope="module")
def dry_run() -> object:
    with dry_run_folder("course-grade-gradescope-test-") as (folder, python):
        made: dict[tuple[str, Path | None], Autograder] = {}

        def autograder(lab: str, course: Path | None = None) -> Autograder:
            if (lab, course) not in made:
                made[lab, course] = set_up(lab, folder, python, secret=SECRET_SEED, course=course)
            return made[lab, course]

        yield autograder, folder


def _text(data: dict) -> str:
    return "\n".join([data["output"], *(test["output"] for test in data["tests"])])


@pytest.mark.slow
def test_setup_makes_the_grader_root_only(dry_run) -> None:
    autograder, _ = dry_run
    root = autograder("11.3").root
    for folder in (root / "course", root / "source"):
        assert folder.stat().st_uid == 0 and folder.stat().st_mode & 0o077 == 0
    assert (root / "course" / "course_lib" / "context.py").is_file()


@pytest.mark.slow
def test_an_honest_solution_next_to_another_labs_notebook_scores_full_marks_and_sees_no_seed(dry_run) -> None:
    autograder, folder = dry_run
    data, said = autograder("11.3").submit(
        {"a_lab_11_2_group_interactions.ipynb": learner("11.2"), "lab_11_3_build_context.ipynb": solution("11.3")},
        cwd=folder,
    )
    assert data["score"] == 7 and len(data["tests"]) == 7, _text(data)
    assert str(SECRET_SEED) not in json.dumps(data) and str(SECRET_SEED) not in said
    results = autograder("11.3").root / "results"
    assert results.stat().st_uid == 0 and results.stat().st_mode & 0o022 == 0
    assert (results / "results.json").stat().st_uid == 0


@pytest.mark.slow
def test_a_notebook_scores_on_gradescope_what_it_scores_locally_under_the_course_file(dry_run) -> None:
    """The course file's points and weights travel in the bundle: Lab 11.3 out of 10, H1 and H2 weighing 2.

    Before, the bundle ignored them: a partly right notebook scored its tests
    passed out of 7 on Gradescope and its weighted points out of 10 locally."""
    autograder, folder = dry_run
    course = ROOT / "docs" / "examples" / "course.toml"
    wrong = next(m for m in MUTANTS if m.lab == "11.3" and m.name == "11_3_reserved_not_deducted")
    data, _ = autograder("11.3", course).submit({"lab_11_3_build_context.ipynb": wrong.notebook()}, cwd=folder)
    path = folder / "local_lab_11_3.ipynb"
    nbformat.write(wrong.notebook(), path)
    local = grade_notebook(path, GradeOptions(judging=JudgingSettings(seed=SECRET_SEED)))
    scored = score(local, load_course(course))
    assert 0 < scored.points < 10 and [t.passed for t in local.tests] == [
        t["status"] == "passed" for t in data["tests"]
    ]
    assert data["score"] == scored.points and data["output"].startswith(f"Lab 11.3: {scored.points:g}/10"), _text(data)


IMPORTS_THE_REFERENCE = """
import os, sys, types
_home = os.getuid()
try:
    import course_lib.teaching.lab_registry as _labs
    for _pass in range(2):  # the real sources of every withheld module, over the view's stubs
        for _withheld in _labs.lab("11.3").withheld:
            _file = os.path.join({installed!r}, *_withheld.module.split(".")) + ".py"
            with open(_file) as _handle:
                _source = _handle.read()
            _module = sys.modules[_withheld.module] = types.ModuleType(_withheld.module)
            _module.__file__, _module.__package__ = _file, _withheld.module.rpartition(".")[0]
            exec(compile(_source, _file, "exec"), _module.__dict__)
    build_context = sys.modules["course_lib.context"].build_context
except Exception as exc:
    _why = f"uid {{_home}}: {{type(exc).__name__}}"
    def build_context(*args, **kwargs):
        raise RuntimeError("the reference was out of reach: " + _why)
"""


@pytest.mark.slow
def test_importing_the_reference_from_the_installed_package_scores_nothing(dry_run) -> None:
    """The real sources of the withheld modules, read from where setup.sh installed course_lib: out of reach.

    Against a readable install (the code before Gradescope mode ran the kernel as
    another uid) the same cell scores 7/7."""
    autograder, folder = dry_run
    grader = autograder("11.3")
    attack = IMPORTS_THE_REFERENCE.format(installed=str(grader.root / "course"))
    notebook = edited(solution("11.3"), "build_context", lambda source: source + "\n" + attack)
    data, _ = grader.submit({"lab_11_3_build_context.ipynb": notebook}, cwd=folder)
    assert data["score"] == 0, _text(data)
    assert "the reference was out of reach: uid 6" in _text(data)  # run as the learner's uid (64100–65399)


@pytest.mark.slow
def test_the_dry_run_refuses_while_the_course_checkout_is_readable(dry_run) -> None:
    """The issue's dry run: the kernel's uid could read the reference from this world-readable checkout (7/7 before).

    The same attack as above, pointed at the checkout instead of the install: the
    autograder refuses before the submission runs, and names the copy and the fix."""
    autograder, folder = dry_run
    grader = autograder("11.3")
    if os.stat(ROOT).st_mode & 0o005 != 0o005:
        pytest.skip("this checkout is not readable by other users here")
    attack = IMPORTS_THE_REFERENCE.format(installed=str(ROOT))
    notebook = edited(solution("11.3"), "build_context", lambda source: source + "\n" + attack)
    data, _ = grader.submit({"lab_11_3_build_context.ipynb": notebook}, cwd=folder, hide=False)
    assert data["score"] == 0, _text(data)
    assert "the learner's account can read a copy of the lab's reference" in data["output"], _text(data)
    assert str(ROOT / "course_lib") in data["output"] and "chmod -R o-rwx" in data["output"]
    hidden, _ = grader.submit({"lab_11_3_build_context.ipynb": notebook}, cwd=folder)  # the checkout out of reach
    assert hidden["score"] == 0 and "the reference was out of reach: uid 6" in _text(hidden), _text(hidden)


@pytest.fixture
def readable_checkout() -> object:
    """Another course checkout on the machine, readable by every user (a clone under a default umask)."""
    folder = public_folder("course-grade-other-checkout-")
    try:
        shutil.copytree(ROOT / "course_lib", folder / "course_lib", ignore=shutil.ignore_patterns("__pycache__"))
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        reference = folder / "course_lib" / "context.py"
        read = subprocess.run(["cat", str(reference)], user=65534, group=65534, extra_groups=[], capture_output=True)
        assert read.returncode == 0 and b"def build_context" in read.stdout  # another user reads the reference
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _pack_dry_run(bundle: Path, notebook: object, folder: Path) -> tuple[dict, str]:
    """``course-grade dry-run BUNDLE NOTEBOOK --results …``, as docs/grading.md gives it; its results.json and output."""
    upload, results = folder / "lab_11_3_build_context.ipynb", folder / "results.json"
    nbformat.write(notebook, upload)
    finished = subprocess.run(
        [sys.executable, "-m", "course_grader", "dry-run", str(bundle), str(upload), "--results", str(results)],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=900,
    )
    assert finished.returncode == 0, finished.stderr
    return json.loads(results.read_text()), finished.stdout


@pytest.mark.slow
def test_the_packs_dry_run_grades_beside_another_readable_checkout(dry_run, readable_checkout, tmp_path) -> None:
    """Issue 44: a dry run by hand scores 0 while any checkout is readable; ``course-grade dry-run`` grades.

    By hand, the strict check (kept for Gradescope) names the other checkout and
    grades nothing. The pack's dry run of a bundle of the same lab, on the same
    machine, gives the solution full marks, and the attack that read the
    reference from the readable checkout finds it out of reach."""
    autograder, folder = dry_run
    attack = IMPORTS_THE_REFERENCE.format(installed=str(readable_checkout))
    notebook = edited(solution("11.3"), "build_context", lambda source: source + "\n" + attack)
    by_hand, _ = autograder("11.3").submit({"lab_11_3_build_context.ipynb": notebook}, cwd=folder, hide=False)
    assert by_hand["score"] == 0 and "the learner's account can read a copy of the lab's reference" in _text(by_hand)
    named = str(readable_checkout / "course_lib") in by_hand["output"] or "places in all" in by_hand["output"]
    assert named, _text(by_hand)  # the first ten places are named: on a machine of many checkouts, maybe not this one
    bundle = tmp_path / "autograder-11.3.zip"
    assert cli.main(["bundle", "--lab", "11.3", "-o", str(bundle), "--seed", str(SECRET_SEED)]) == 0
    data, said = _pack_dry_run(bundle, solution("11.3"), tmp_path)
    assert data["score"] == len(data["tests"]) == 7 and "not set up" not in _text(data), _text(data)
    assert "sandbox: learner account" in said and f"wrote {tmp_path / 'results.json'}: score 7 of 7" in said
    attacked, _ = _pack_dry_run(bundle, notebook, tmp_path)
    assert attacked["score"] == 0 and "the reference was out of reach: uid 6" in _text(attacked), _text(attacked)


REWRITER = """
import os, subprocess, sys
_fake = {fake!r}
_code = (
    "import os, time\\n"
    "if os.fork(): os._exit(0)\\n"
    "os.setsid()\\n"
    "if os.fork(): os._exit(0)\\n"
    "end = time.time() + 90\\n"
    "while time.time() < end:\\n"
    "    try:\\n"
    "        os.makedirs({results!r}, exist_ok=True)\\n"
    "        open(os.path.join({results!r}, 'results.json'), 'w').write(" + repr(_fake) + ")\\n"
    "    except OSError:\\n"
    "        pass\\n"
    "    time.sleep(0.05)\\n"
    "# {marker}\\n"
)
subprocess.Popen([sys.executable, "-c", _code], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
"""


def _alive(marker: str) -> list[int]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


@pytest.mark.slow
def test_a_detached_rewriter_is_dead_before_results_are_written(dry_run) -> None:
    """A stub (0/5) that leaves a double-forked process rewriting results.json as 5/5: it stays 0/5."""
    autograder, folder = dry_run
    grader = autograder("11.2")
    marker = f"course-grade-rewriter-{uuid.uuid4().hex[:8]}"
    fake = json.dumps({"score": 5, "tests": []})
    attack = REWRITER.format(fake=fake, results=str(grader.root / "results"), marker=marker)
    notebook = edited(learner("11.2"), "group_interactions", lambda source: attack + "\n" + source)
    data, _ = grader.submit({"lab_11_2_group_interactions.ipynb": notebook}, cwd=folder)
    assert data["score"] == 0 and len(data["tests"]) == 5, _text(data)
    assert _alive(marker) == []
    written = (grader.root / "results" / "results.json").read_bytes()
    time.sleep(1.5)
    assert (grader.root / "results" / "results.json").read_bytes() == written


@pytest.mark.slow
def test_two_uploads_for_the_lab_are_refused(dry_run) -> None:
    autograder, folder = dry_run
    data, _ = autograder("11.3").submit(
        {"a_draft.ipynb": learner("11.3"), "lab_11_3_build_context.ipynb": solution("11.3")}, cwd=folder
    )
    assert data["score"] == 0 and "a_draft.ipynb" in data["output"], _text(data)
    assert "Upload only your Lab 11.3 notebook" in data["output"]


@pytest.mark.slow
def test_the_capstone_solution_scores_full_marks_in_its_bundle(dry_run) -> None:
    autograder, folder = dry_run
    data, _ = autograder("capstone").submit({"02_lifecycle_capstone.ipynb": solution("capstone")}, cwd=folder)
    assert data["score"] == len(data["tests"]) > 0, _text(data)
