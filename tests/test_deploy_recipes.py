"""The recipes in deploy/ are complete and their steps run (issue 29): the Actions workflow, the Indexed Job, the image.

Before, docs/grading.md held snippets that did not run: the workflow uploaded
only shard CSVs (the merged run had no ``grades.jsonl``, so ``feedback``
failed) and never uploaded ``grades.csv``; the Job had no image, no working
directory for its relative ``.venv/bin/…``, nothing that lets bubblewrap make
its namespaces, and no merge. Now they are files, and this test reads them.

The fast tests read their structure. The slow ones run their grading steps on
this machine, as the files hold them (the commands parsed from the YAML, not
retyped): each shard in a process of its own, at once, in a folder of its own
(a matrix machine, a pod), what a shard uploads copied to where the merge job
downloads it (GitHub's artifacts; the Job's shared volume is one folder), then
the merge step, the feedback pages and the class report from the merged
result. The merged CSV must equal an unsharded run's but for the measured
``seconds``, and its records an unsharded run's but for ``execution_time``.
Here ``N`` is 2 (the files say 4: a course picks its own). The grading
commands get ``--no-sandbox`` appended: this test is ``slow``, not
``sandboxed`` (sandboxed grading of shards is ``tests/test_term_class.py``'s),
and the pod's security settings cannot be tried without a cluster. Container
builds are not run either (no registry to pull the base image from).
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml
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
[limits]
timeout = 60    # a loaded machine: no limit may decide a grade here
budget = 900
[labs."11.2"]
points = 10
"""
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


def test_the_containerfile_builds_on_the_official_python_image_with_bubblewrap() -> None:
    text = CONTAINERFILE.read_text(encoding="utf-8")
    instructions = [line.split(None, 1) for line in text.splitlines() if line and not line.startswith((" ", "#"))]
    assert instructions[0] == ["FROM", "docker.io/library/python:3.11-slim"]
    assert re.search(r"apt-get install [^\n]*\bbubblewrap\b", text)
    workdir = [rest for word, rest in instructions if word == "WORKDIR"]
    assert workdir == ["/course"] and ["COPY", "--chown=grader:grader . /course"] in instructions
    assert ["USER", "grader"] in instructions and "python -m venv .venv" in text and "pip install" in text
    assert all(container(step)["workingDir"] == workdir[0] for step in ("grade", "merge"))


def test_the_indexed_job_has_its_image_volume_working_directory_and_the_sandbox_settings() -> None:
    grading, merging = job("grade"), job("merge")
    spec, pod = grading["spec"], grading["spec"]["template"]["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == spec["parallelism"]
    grade = container("grade")
    assert env(grade)["SHARDS"] == str(spec["completions"])
    assert container("merge")["image"] == grade["image"] and "deploy/Containerfile" in JOBS.read_text()
    (claim,) = [doc for doc in documents() if doc["kind"] == "PersistentVolumeClaim"]
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
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
    assert kept["with"]["path"].split() == ["grades.csv", "grades.jsonl", "feedback/", "report.html"]
    assert "kernel.apparmor_restrict_unprivileged_userns=0" in " ".join(s.get("run", "") for s in grade["steps"])


def test_the_docs_point_at_the_files() -> None:
    text = (ROOT / "docs" / "grading.md").read_text(encoding="utf-8")
    for path in (WORKFLOW, JOBS, CONTAINERFILE):
        assert f"deploy/{path.name}" in text, path.name


# --- what they do, on this machine ----------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    data: Path
    """The term as both recipes find it: submissions/ and course.toml (the Job's volume, the repository's files)."""
    whole: Path
    """An unsharded run's CSV, its grades.jsonl beside it."""


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> Term:
    """Four Lab 11.2 notebooks, two per shard; ana's two files are in two shards (merge decides which counts)."""
    data = tmp_path_factory.mktemp("deploy") / "data"
    wrong = next(m for m in MUTANTS if m.lab == "11.2")
    files = {
        "ana/lab_11_2_first.ipynb": wrong.notebook(),
        "ana/lab_11_2_final.ipynb": solution("11.2"),
        "ben_lab_11_2.ipynb": wrong.notebook(),
        "dee_lab_11_2.ipynb": solution("11.2"),
    }
    for number, (name, notebook) in enumerate(files.items()):
        (data / "submissions" / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, data / "submissions" / name)
        os.utime(data / "submissions" / name, (1_700_000_000 + number, 1_700_000_000 + number))
    assert sorted(shard_of(name, SHARDS) for name in files) == [1, 1, 2, 2]
    assert shard_of("ana/lab_11_2_first.ipynb", SHARDS) != shard_of("ana/lab_11_2_final.ipynb", SHARDS)
    (data / "course.toml").write_text(COURSE, encoding="utf-8")
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


def start(command: str, cwd: Path, variables: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["bash", "-e", "-c", command],
        cwd=cwd,
        env={**os.environ, **(variables or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=3600)
    assert process.returncode == 0, f"{process.args!r}\n{out[-2000:]}\n{err[-3000:]}"
    return out + err


def run(command: str, cwd: Path, variables: dict[str, str] | None = None) -> str:
    return finish(start(command, cwd, variables))


def unsandboxed(command: str) -> str:
    """The grading command as the file holds it, run without bubblewrap (see the module's docstring)."""
    assert "course-grade" in command.rsplit("&&", 1)[-1] and "--shard" in command
    return f"{command} --no-sandbox"


def expanded(text: str, context: dict[str, str]) -> str:
    """GitHub's ``${{ … }}`` expressions filled in; one this test does not know fails it."""
    return EXPRESSION.sub(lambda match: context[match.group(1)], text)


def table(path: Path, *, measured: str = "seconds") -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    skip = rows[0].index(measured)
    return [[cell for index, cell in enumerate(row) if index != skip] for row in rows]


def assert_whole(grades: Path, pages: Path, report: Path, whole: Path) -> None:
    """The merged result is the unsharded run's, records included, and the pages and report were made from it."""
    assert table(grades) == table(whole)
    merged = [r.model_dump(exclude={"execution_time"}) for r in read_records(grades.with_suffix(".jsonl"))]
    alone = [r.model_dump(exclude={"execution_time"}) for r in read_records(whole.with_suffix(".jsonl"))]
    assert merged == alone
    ana = [(r["submission"], r["counts"]) for r in merged if r["student"] == "ana"]
    assert ana == [("ana/lab_11_2_final.ipynb", True), ("ana/lab_11_2_first.ipynb", False)]  # the latest
    assert all(r["notes"][0].startswith("duplicate: ana has 2 Lab 11.2 submissions") for r in merged[:2])
    assert (pages / "index.html").is_file() and (pages / "ana_lab_11_2.html").is_file()
    assert "<h2>Score distribution per lab</h2>" in report.read_text(encoding="utf-8")


@pytest.mark.slow  # grades the class twice over (shards, then the unsharded run it is compared with)
def test_the_github_workflow_grades_merges_and_publishes_on_this_machine(term: Term, tmp_path: Path) -> None:
    jobs, variables = workflow()["jobs"], {k: str(v) for k, v in workflow()["env"].items()}
    variables |= {"SUBMISSIONS": str(term.data / "submissions"), "COURSE": str(term.data / "course.toml")}
    setup = {"make venv grading-tools", "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0", "make venv"}
    grading = [s["run"] for s in jobs["grade"]["steps"] if "run" in s and s["run"].split("#")[0].strip() not in setup]
    (upload,) = [step for step in jobs["grade"]["steps"] if uses(step, "actions/upload-artifact")]
    (download,) = [step for step in jobs["merge"]["steps"] if uses(step, "actions/download-artifact")]
    merge = machine(tmp_path / "merge")
    runners = []
    for shard in range(1, SHARDS + 1):
        context = {"matrix.shard": str(shard), "strategy.job-total": str(SHARDS)}
        (command,) = [expanded(text, context) for text in grading]
        runner = machine(tmp_path / f"runner-{shard}")
        runners.append((runner, context, start(unsandboxed(command), runner, variables)))
    for runner, context, process in runners:
        finish(process)
        for name in expanded(upload["with"]["path"], context).splitlines():  # the artifact, then its download
            (merge / download["with"]["path"]).mkdir(exist_ok=True)
            shutil.copy(runner / name, merge / download["with"]["path"] / name)
    for step in jobs["merge"]["steps"]:
        if "run" in step and step["run"].split("#")[0].strip() not in setup:
            run(expanded(step["run"], {}), merge, variables)
    assert_whole(merge / "grades.csv", merge / "feedback", merge / "report.html", term.whole)


@pytest.mark.slow  # grades the class twice over (shards, then the unsharded run it is compared with)
def test_the_kubernetes_jobs_grade_merge_and_publish_on_this_machine(term: Term, tmp_path: Path) -> None:
    grade, merge = container("grade"), container("merge")
    volume = term.data  # the PersistentVolumeClaim, mounted by every pod at DATA: the term's folder itself
    (command,) = grade["args"]
    assert grade["command"] == ["sh", "-c"] and merge["command"] == ["sh", "-c"]
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
        "shard-2.csv",
        "shard-2.jsonl",
    ]
    (merging,) = merge["args"]
    run(merging, machine(tmp_path / "merge-pod"), env(merge) | {"DATA": str(volume)})
    assert_whole(volume / "grades.csv", volume / "feedback", volume / "report.html", term.whole)
