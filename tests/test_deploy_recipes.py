"""The recipes in deploy/ are complete, valid and their steps run (issues 29, 44): the Actions workflow, the Jobs, the image.

Before, docs/grading.md held snippets that did not run: the workflow uploaded
only shard CSVs (the merged run had no ``grades.jsonl``, so ``feedback``
failed) and never uploaded ``grades.csv``; the Job had no image, no working
directory for its relative ``.venv/bin/…``, nothing that lets bubblewrap make
its namespaces, and no merge. Then (issue 44) the workflow had no cgroup, no
timeout, the default 90 days of student work in its artifacts, no LMS zips or
gradebooks, and 3 minutes of ``make venv`` per runner; the Jobs had no Pod
Security label, no storage class, no clean rerun, a wait that hung on a failed
Job and a placeholder image. Now they are files, and this test reads them.

The fast tests read their structure, and validate them as far as this machine
allows: the workflows against the GitHub workflow schema that check-jsonschema
ships (``vendor.github-workflows``, offline), the manifests with
kubernetes-validate (the schemas it ships, strict, for two Kubernetes
versions), and the Job file's header commands with ``bash -n`` (the wait among
them run against a Job that fails). The ``integration`` ones (``make
test-integration``) run their grading steps on this machine, as the files hold
them (the commands parsed from the YAML, not retyped): each shard in a process of its own, at once, in a folder of its own
(a matrix machine, a pod), what a shard uploads copied to where the merge job
downloads it (GitHub's artifacts; the Job's shared volume is one folder), then
the merge step, the feedback pages with both LMS's zips, the class report and
both gradebooks from the merged result. The merged CSV must equal an unsharded
run's but for the measured ``seconds``, and its records an unsharded run's but
for ``execution_time``. Here ``N`` is 2 (the files say 4: a course picks its
own). The grading commands get ``--no-sandbox`` appended, and the workflow's
``sudo --preserve-env`` (root, for the runner's cgroup) is left out: this test
runs as whoever runs it. The runner's set-up steps (the cache, apt, the sysctl,
the cgroup v2 folder) and the pods' security settings cannot be tried without
GitHub or a cluster; they are read and schema-checked only.

Without a container engine, the image is emulated as root can
(``test_the_images_install_and_a_shard_run_as_its_non_root_user``, sandboxed):
the Containerfile's checkout copied to a folder owned by its ``USER``'s uid,
its install step run as that uid with a Python of the base image's version,
then one shard graded by the Job's own command as that uid, in real sandboxes.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml
from gradescope_dry_run import public_folder, shared_interpreter
from grading_corpus import solution
from mutants import MUTANTS
from term_secrets import TERM

from course_grader.intake.shard import shard_of
from course_grader.results.records import read_records

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
WORKFLOW = DEPLOY / "github-actions-grading.yml"
JOBS = DEPLOY / "kubernetes-indexed-job.yaml"
CONTAINERFILE = DEPLOY / "Containerfile"
SHARDS = 2
COURSE = f"""seed = "{TERM}"
roster = "roster.csv"
[limits]
timeout = 60    # a loaded machine: no limit may decide a grade here
budget = 900
[labs."11.2"]
points = 10
"""
ROSTER = """id,name,email,aliases,section
ana,Ana Silva,ana.silva@example.edu,,A
ben,Ben Lee,ben.lee@example.edu,leeben;48301,A
dee,Dee Park,dee.park@example.edu,55101,B
"""
"""ben's file is named as Canvas names its download, dee's as Moodle does: each LMS's zip has a page."""
BIN = Path(sys.executable).parent
NAMESPACE = "course-grade"
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def workflow() -> dict[str, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def documents() -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(JOBS.read_text(encoding="utf-8")) if doc]


def job(step: str) -> dict[str, Any]:
    (found,) = [doc for doc in documents() if doc["kind"] == "Job" and doc["metadata"]["labels"]["step"] == step]
    return found


def container(step: str) -> dict[str, Any]:
    (only,) = job(step)["spec"]["template"]["spec"]["containers"]
    assert isinstance(only, dict)
    return only


def env(of: dict[str, Any]) -> dict[str, str]:
    return {item["name"]: item["value"] for item in of.get("env", [])}


def uses(step: dict[str, Any], action: str) -> bool:
    return str(step.get("uses", "")).startswith(f"{action}@")


# --- what the files hold --------------------------------------------------------------------------


def build_tag() -> str:
    """The image name the Containerfile's documented build command gives."""
    (tag,) = re.findall(r"podman build -f deploy/Containerfile -t (\S+) \.", CONTAINERFILE.read_text(encoding="utf-8"))
    return tag


def test_the_containerfile_builds_on_the_official_python_image_with_bubblewrap() -> None:
    text = CONTAINERFILE.read_text(encoding="utf-8")
    instructions = [line.split(None, 1) for line in text.splitlines() if line and not line.startswith((" ", "#"))]
    assert instructions[0] == ["FROM", "docker.io/library/python:3.11-slim"]
    assert re.search(r"apt-get install [^\n]*\bbubblewrap\b", text)
    workdir = [rest for word, rest in instructions if word == "WORKDIR"]
    assert workdir == ["/course"] and ["COPY", "--chown=grader:grader . /course"] in instructions
    assert ["USER", "grader"] in instructions and "python -m venv .venv" in text and "pip install" in text
    assert all(container(step)["workingDir"] == workdir[0] for step in ("grade", "merge"))


def test_the_jobs_run_the_image_the_documented_command_builds() -> None:
    """No placeholder: both Jobs name what ``podman build … -t NAME`` makes, and the header gives that command."""
    tag = build_tag()
    assert tag == "localhost/course-grade:latest" and f"-t {tag} ." in JOBS.read_text(encoding="utf-8")
    for step in ("grade", "merge"):
        assert container(step)["image"] == tag and container(step)["imagePullPolicy"] == "IfNotPresent"


def test_the_indexed_job_has_its_image_volume_working_directory_and_the_sandbox_settings() -> None:
    grading, merging = job("grade"), job("merge")
    spec, pod = grading["spec"], grading["spec"]["template"]["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == spec["parallelism"]
    grade = container("grade")
    assert env(grade)["SHARDS"] == env(container("merge"))["SHARDS"] == str(spec["completions"])
    assert container("merge")["image"] == grade["image"] and "deploy/Containerfile" in JOBS.read_text()
    (claim,) = [doc for doc in documents() if doc["kind"] == "PersistentVolumeClaim"]
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"] and claim["spec"]["storageClassName"]
    for each in (grading, merging):
        (volume,) = each["spec"]["template"]["spec"]["volumes"]
        assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    for step in ("grade", "merge"):
        (mount,) = container(step)["volumeMounts"]
        assert env(container(step))["DATA"] == mount["mountPath"]
    assert pod["hostUsers"] is False and pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0 and "fsGroup" in pod["securityContext"]
    context = grade["securityContext"]
    assert context["seccompProfile"] == {"type": "Unconfined"} and context["appArmorProfile"] == {"type": "Unconfined"}
    assert context["procMount"] == "Unmasked" and context["allowPrivilegeEscalation"] is False
    assert "--no-sandbox" not in grade["args"][0]


def test_everything_runs_in_a_namespace_pod_security_admits_the_sandbox_in() -> None:
    """Unconfined seccomp is outside Pod Security's baseline: the namespace enforces "privileged", and holds it all."""
    (namespace,) = [doc for doc in documents() if doc["kind"] == "Namespace"]
    assert namespace["metadata"]["name"] == NAMESPACE
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    assert namespace["metadata"]["labels"]["step"] == "volume"  # applied with the volume, before any Job
    assert all(doc["metadata"]["namespace"] == NAMESPACE for doc in documents() if doc["kind"] != "Namespace")


def test_the_workflow_carries_the_records_and_uploads_what_merge_writes() -> None:
    jobs = workflow()["jobs"]
    grade, merge = jobs["grade"], jobs["merge"]
    assert grade["strategy"]["matrix"]["shard"] == list(range(1, len(grade["strategy"]["matrix"]["shard"]) + 1))
    (upload,) = [step for step in grade["steps"] if uses(step, "actions/upload-artifact")]
    assert upload["with"]["path"].splitlines() == ["shard-${{ matrix.shard }}.csv", "shard-${{ matrix.shard }}.jsonl"]
    assert merge["needs"] == "grade"
    (download,) = [step for step in merge["steps"] if uses(step, "actions/download-artifact")]
    assert download["with"]["merge-multiple"] is True
    (kept,) = [step for step in merge["steps"] if uses(step, "actions/upload-artifact")]
    assert kept["with"]["path"].split() == ["grades.csv", "grades.jsonl", "feedback/", "report.html", "gradebook-*.csv"]
    assert "kernel.apparmor_restrict_unprivileged_userns=0" in " ".join(s.get("run", "") for s in grade["steps"])


def test_the_workflow_bounds_its_time_and_how_long_it_keeps_student_work() -> None:
    jobs = workflow()["jobs"]
    assert all(0 < job["timeout-minutes"] <= 120 for job in jobs.values())
    uploads = [step for job in jobs.values() for step in job["steps"] if uses(step, "actions/upload-artifact")]
    assert len(uploads) == 2 and all(0 < step["with"]["retention-days"] <= 7 for step in uploads)


def test_the_workflow_installs_only_what_grading_needs_from_a_cache() -> None:
    """Each job restores .venv (keyed on pyproject.toml) and installs the [grader] extra only when it misses."""
    for name, job in workflow()["jobs"].items():
        steps = job["steps"]
        (cache,) = [step for step in steps if uses(step, "actions/cache")]
        assert cache["with"]["path"] == ".venv" and "hashFiles('pyproject.toml')" in cache["with"]["key"]
        (install,) = [step for step in steps if "pip install" in step.get("run", "")]
        assert install["if"] == f"steps.{cache['id']}.outputs.cache-hit != 'true'", name
        assert "-e '.[grader]'" in install["run"] and "[dev]" not in install["run"]
        assert not any("make venv" in step.get("run", "") for step in steps), name


def test_the_workflow_gives_the_sandboxes_a_cgroup_where_the_runner_allows_it() -> None:
    """A delegated cgroup v2 folder named in COURSE_GRADE_CGROUP, the grader as root to use it; else a warning."""
    steps = workflow()["jobs"]["grade"]["steps"]
    (made,) = [step["run"] for step in steps if "cgroup.subtree_control" in step.get("run", "")]
    assert '"+memory +pids"' in made and "COURSE_GRADE_CGROUP=" in made and "::warning::" in made
    (grading,) = [step["run"] for step in steps if ".venv/bin/course-grade" in step.get("run", "")]
    assert grading.startswith("sudo --preserve-env .venv/bin/course-grade ")
    assert steps.index(next(s for s in steps if s.get("run") == made)) < steps.index(
        next(s for s in steps if s.get("run") == grading)
    )


@pytest.mark.slow  # check-jsonschema compiles the GitHub schema, seconds: make test, not make check
def test_the_workflows_pass_the_github_workflow_schema() -> None:
    """check-jsonschema's own copy of the GitHub workflow schema (no download): the recipe and this repository's."""
    workflows = [WORKFLOW, *sorted((ROOT / ".github" / "workflows").glob("*.yml"))]
    checked = subprocess.run(
        [str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, workflows)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0 and "ok -- validation done" in checked.stdout, checked.stdout + checked.stderr


@pytest.mark.slow  # kubernetes-validate loads its schemas, seconds a version: make test, not make check
@pytest.mark.parametrize("version", ["1.33.0", None])  # the first with user namespaces for pods on; the newest shipped
def test_the_manifests_pass_kubernetes_validate(version: str | None) -> None:
    checked = subprocess.run(
        [str(BIN / "kubernetes-validate"), "--strict", *(["-k", version] if version else []), str(JOBS)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = checked.stdout + checked.stderr
    assert checked.returncode == 0 and said.count(" passed for resource ") == len(documents()), said


def header_commands() -> str:
    """The shell lines of the Job file's header (its indented ``#      `` lines), as one script."""
    lines = JOBS.read_text(encoding="utf-8").split("\napiVersion:", 1)[0].splitlines()
    return "\n".join(line[len("#      ") :] for line in lines if line.startswith("#      "))


def test_the_job_files_commands_parse_and_the_wait_ends_on_a_failed_job() -> None:
    """``finished`` returns 1 on a Job whose conditions say Failed, 0 on Complete: it never waits out a failure.

    ``kubectl`` here is a function answering the ``get … -o jsonpath`` query as
    the API server does for such a Job (its true conditions' types); the
    function under test is the header's own, cut from the file."""
    script = header_commands()
    assert subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True).returncode == 0
    assert "kubectl -n course-grade delete job -l app=course-grade --ignore-not-found" in script
    assert "kubectl wait --for=condition=complete" not in script
    finished = re.search(r"^finished\(\) \{\n.*?^\}$", script, re.MULTILINE | re.DOTALL)
    assert finished is not None
    for conditions, status in (("FailureTarget Failed", 1), ("SuccessCriteriaMet Complete", 0)):
        api = f'kubectl() {{ case "$*" in *jsonpath*) echo "{conditions}" ;; *) echo "log of $*" ;; esac; }}'
        ran = subprocess.run(
            ["bash", "-c", f"{api}\n{finished.group(0)}\nfinished course-grade-shards"],
            capture_output=True,
            text=True,
            timeout=20,
        )
        assert ran.returncode == status, ran.stderr
        assert ("job/course-grade-shards failed" in ran.stderr) == (status == 1)


def test_the_docs_point_at_the_files() -> None:
    text = (ROOT / "docs" / "grading.md").read_text(encoding="utf-8")
    for path in (WORKFLOW, JOBS, CONTAINERFILE):
        assert f"deploy/{path.name}" in text, path.name


# --- what they do, on this machine ----------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    data: Path
    """The term as both recipes find it: submissions/, course.toml and its roster (the Job's volume, the repository)."""
    whole: Path
    """An unsharded run's CSV, its grades.jsonl beside it."""


FILES = {
    "ana/lab_11_2_first.ipynb": False,
    "ana/lab_11_2_final.ipynb": True,
    "leeben_48301_9000003_lab_11_2.ipynb": False,  # Canvas's download name: ben
    "Dee Park_55101_assignsubmission_file_/lab_11_2.ipynb": True,  # Moodle's: dee
}
"""Each file and whether it is the solution (else a wrong answer)."""


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> Term:
    """Four Lab 11.2 notebooks, two per shard; ana's two files are in two shards (merge decides which counts)."""
    data = tmp_path_factory.mktemp("deploy") / "data"
    wrong = next(m for m in MUTANTS if m.lab == "11.2")
    for number, (name, right) in enumerate(FILES.items()):
        (data / "submissions" / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(solution("11.2") if right else wrong.notebook(), data / "submissions" / name)
        os.utime(data / "submissions" / name, (1_700_000_000 + number, 1_700_000_000 + number))
    assert sorted(shard_of(name, SHARDS) for name in FILES) == [1, 1, 2, 2]
    assert shard_of("ana/lab_11_2_first.ipynb", SHARDS) != shard_of("ana/lab_11_2_final.ipynb", SHARDS)
    (data / "course.toml").write_text(COURSE, encoding="utf-8")
    (data / "roster.csv").write_text(ROSTER, encoding="utf-8")
    whole = machine(data.parent / "whole") / "whole.csv"
    run(
        f'.venv/bin/course-grade "{data}/submissions" --course "{data}/course.toml" -j 2 --no-progress '
        f'--no-sandbox --out "{whole}"',
        whole.parent,
    )
    return Term(data, whole)


def machine(folder: Path) -> Path:
    """A folder standing for a runner's checkout or the image's /course: ``.venv`` there is this checkout's."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".venv").symlink_to(ROOT / ".venv", target_is_directory=True)
    return folder


def start(
    command: str, cwd: Path, variables: dict[str, str] | None = None, *, user: int | None = None
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["bash", "-e", "-c", command],
        cwd=cwd,
        env={**os.environ, **(variables or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        user=user,
        group=user,
        extra_groups=None if user is None else [],
    )


def finish(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=3600)
    assert process.returncode == 0, f"{process.args!r}\n{out[-2000:]}\n{err[-3000:]}"
    return out + err


def run(command: str, cwd: Path, variables: dict[str, str] | None = None, *, user: int | None = None) -> str:
    return finish(start(command, cwd, variables, user=user))


def unsandboxed(command: str) -> str:
    """The grading command as the file holds it, run without bubblewrap (see the module's docstring)."""
    assert "course-grade" in command.rsplit("&&", 1)[-1] and "--shard" in command
    return f"{command} --no-sandbox"


def as_this_user(command: str) -> str:
    """The workflow's grading command without its ``sudo --preserve-env`` (root, for the runner's cgroup)."""
    prefix = "sudo --preserve-env "
    assert command.startswith(prefix)
    return command.removeprefix(prefix)


def expanded(text: str, context: dict[str, str]) -> str:
    """GitHub's ``${{ … }}`` expressions filled in; one this test does not know fails it."""
    return EXPRESSION.sub(lambda match: context[match.group(1)], text)


def table(path: Path, *, measured: str = "seconds") -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    skip = rows[0].index(measured)
    return [[cell for index, cell in enumerate(row) if index != skip] for row in rows]


def assert_whole(out: Path, whole: Path) -> None:
    """The merged result is the unsharded run's, records included; the pages, report, zips and gradebooks from it."""
    grades, pages = out / "grades.csv", out / "feedback"
    assert table(grades) == table(whole)
    merged = [r.model_dump(exclude={"execution_time"}) for r in read_records(grades.with_suffix(".jsonl"))]
    alone = [r.model_dump(exclude={"execution_time"}) for r in read_records(whole.with_suffix(".jsonl"))]
    assert merged == alone
    ana = [(r["submission"], r["counts"]) for r in merged if r["student"] == "ana"]
    assert ana == [("ana/lab_11_2_final.ipynb", True), ("ana/lab_11_2_first.ipynb", False)]  # the latest
    notes = [r["notes"][0] for r in merged if r["student"] == "ana"]
    assert all(note.startswith("duplicate: ana has 2 Lab 11.2 submissions") for note in notes), notes
    assert (pages / "index.html").is_file() and (pages / "ana_lab_11_2.html").is_file()
    assert "<h2>Score distribution per lab</h2>" in (out / "report.html").read_text(encoding="utf-8")
    for lms, student in (("canvas", "48301"), ("moodle", "55101")):  # each LMS's zip holds its own student's page
        entries = [name for path in pages.glob(f"feedback-{lms}*.zip") for name in zipfile.ZipFile(path).namelist()]
        assert [name for name in entries if student in name and name.endswith(".html")], (lms, entries)
        book = (out / f"gradebook-{lms}.csv").read_text(encoding="utf-8-sig")
        assert all(name in book for name in ("Ana Silva", "Ben Lee", "Dee Park")), book


@pytest.mark.slow  # grades the class twice over (shards, then the unsharded run it is compared with)
@pytest.mark.integration  # the recipe's own commands: make test-integration
def test_the_github_workflow_grades_merges_and_publishes_on_this_machine(term: Term, tmp_path: Path) -> None:
    jobs, variables = workflow()["jobs"], {k: str(v) for k, v in workflow()["env"].items()}
    variables |= {"SUBMISSIONS": str(term.data / "submissions"), "COURSE": str(term.data / "course.toml")}
    grading = [s["run"] for s in jobs["grade"]["steps"] if ".venv/bin/course-grade" in s.get("run", "")]
    (upload,) = [step for step in jobs["grade"]["steps"] if uses(step, "actions/upload-artifact")]
    (download,) = [step for step in jobs["merge"]["steps"] if uses(step, "actions/download-artifact")]
    merge = machine(tmp_path / "merge")
    runners = []
    for shard in range(1, SHARDS + 1):
        context = {"matrix.shard": str(shard), "strategy.job-total": str(SHARDS)}
        (command,) = [as_this_user(expanded(text, context)) for text in grading]
        runner = machine(tmp_path / f"runner-{shard}")
        runners.append((runner, context, start(unsandboxed(command), runner, variables)))
    for runner, context, process in runners:
        finish(process)
        for name in expanded(upload["with"]["path"], context).splitlines():  # the artifact, then its download
            (merge / download["with"]["path"]).mkdir(exist_ok=True)
            shutil.copy(runner / name, merge / download["with"]["path"] / name)
    for step in jobs["merge"]["steps"]:
        if ".venv/bin/course-grade" in step.get("run", ""):
            run(expanded(step["run"], {}), merge, variables)
    assert_whole(merge, term.whole)


@pytest.mark.slow  # grades the class twice over (shards, then the unsharded run it is compared with)
@pytest.mark.integration
def test_the_kubernetes_jobs_grade_merge_and_publish_on_this_machine(term: Term, tmp_path: Path) -> None:
    grade, merge = container("grade"), container("merge")
    volume = term.data  # the PersistentVolumeClaim, mounted by every pod at DATA: the term's folder itself
    assert grade["command"] == ["sh", "-c"] and merge["command"] == ["sh", "-c"]
    (volume / "shards").mkdir(exist_ok=True)
    (volume / "shards" / "shard-3.csv").write_text("a previous run's third shard\n", encoding="utf-8")  # a rerun
    (volume / "feedback").mkdir(exist_ok=True)
    (volume / "feedback" / "gone_lab_11_2.html").write_text("a previous run's page", encoding="utf-8")
    (command,) = grade["args"]
    pods = [
        start(
            unsandboxed(command),
            machine(tmp_path / f"pod-{index}"),
            env(grade) | {"SHARDS": str(SHARDS), "DATA": str(volume), "JOB_COMPLETION_INDEX": str(index)},
        )
        for index in range(SHARDS)
    ]
    for pod in pods:
        finish(pod)
    assert sorted(path.name for path in (volume / "shards").iterdir()) == [
        "shard-1.csv",
        "shard-1.jsonl",
        "shard-1.run.json",  # the run beside each CSV (results/run_file.py)
        "shard-2.csv",
        "shard-2.jsonl",
        "shard-2.run.json",
        "shard-3.csv",
    ]
    (merging,) = merge["args"]
    run(merging, machine(tmp_path / "merge-pod"), env(merge) | {"DATA": str(volume), "SHARDS": str(SHARDS)})
    assert_whole(volume, term.whole)
    assert not (volume / "feedback" / "gone_lab_11_2.html").exists()


def image_folder(tmp_path: Path, uid: int) -> Path:
    """The Containerfile's ``COPY --chown=grader:grader . /course``: a clean checkout's files, owned by ``uid``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    course = tmp_path / "course"
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():  # a file deleted in the working tree is not in a clean clone of it either
            (course / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, course / name)
    for path in [tmp_path, *tmp_path.rglob("*")]:
        os.chown(path, uid, uid, follow_symlinks=False)
    return course


@pytest.mark.slow
@pytest.mark.sandboxed  # as root: the files handed to the image's user, then its sandboxes as that user
def test_the_images_install_and_a_shard_run_as_its_non_root_user(term: Term) -> None:
    """The Containerfile's install step, then shard 1 by the Job's own command, both as the image's uid 1000.

    No container engine here: the checkout is copied as ``COPY`` does, owned by
    the uid the Job's ``runAsUser`` names, and the install step after ``USER``
    runs as that uid with a system Python of the base image's version as
    ``python`` (pip reaches the package index as the image build does). The
    shard is graded in real sandboxes (bubblewrap unprivileged: a user namespace
    per sandbox) and scores as the unsharded run did."""
    uid = job("grade")["spec"]["template"]["spec"]["securityContext"]["runAsUser"]
    interpreter = shared_interpreter()
    if interpreter is None or not interpreter.endswith("3.11"):
        pytest.skip("no Python 3.11 (the image's) that another user can run on this machine")
    install = re.search(r"^USER grader\n(?:#.*\n|\n)*RUN ((?:.*\\\n)*.*)$", CONTAINERFILE.read_text(), re.MULTILINE)
    assert install is not None and "pip install" in install.group(1) and "'.[grader]'" in install.group(1)
    root = public_folder("course-grade-image-")
    try:
        course, home, volume = image_folder(root, uid), root / "home", root / "data"
        shutil.copytree(term.data, volume, ignore=shutil.ignore_patterns("shards", "feedback", "grades.*"))
        home.mkdir()
        (root / "bin").mkdir()
        python = root / "bin" / "python"  # a script, not a link: the venv then links to the interpreter itself,
        python.write_text(f'#!/bin/sh\nexec {interpreter} "$@"\n')  # which the sandbox mounts as the image's
        python.chmod(0o755)
        for path in [home, volume, *volume.rglob("*")]:
            os.chown(path, uid, uid)  # the image's home; fsGroup: the volume is the grader's
        image = {"HOME": str(home), "PATH": f"{root / 'bin'}:/usr/local/bin:/usr/bin:/bin"}
        said = run(install.group(1).replace("\\\n", " "), course, image, user=uid)
        assert "usage: course-grade" not in said  # --help went to /dev/null: the install ran whole
        grade = container("grade")
        (command,) = grade["args"]
        variables = env(grade) | {"SHARDS": str(SHARDS), "DATA": str(volume), "JOB_COMPLETION_INDEX": "0"}
        run(command, course, image | variables, user=uid)
        shard = volume / "shards" / "shard-1.csv"
        assert shard.stat().st_uid == uid
        graded = {row["file"]: row for row in csv.DictReader(io.StringIO(shard.read_text(encoding="utf-8")))}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    whole = {row["file"]: row for row in csv.DictReader(io.StringIO(term.whole.read_text(encoding="utf-8")))}
    assert sorted(graded) == sorted(name for name in FILES if shard_of(name, SHARDS) == 1)
    same = ("student", "lab", "status", "points", "max_points", "score", "total", "max_score", "seed")
    assert {row["sandbox"] for row in graded.values()} == {"bubblewrap"}, [row["notes"] for row in graded.values()]
    assert all([row[key] for key in same] == [whole[name][key] for key in same] for name, row in graded.items())
