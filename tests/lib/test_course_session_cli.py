"""``course-session`` run in-process: ``main([...])`` with stdout and stderr captured."""

from __future__ import annotations

from pathlib import Path

import pytest

from course_lib import JsonlSessionStore, build_context, estimate_tokens_chars
from course_lib.importers import Format, load_session, sample_path
from course_lib.importers.cli import main


@pytest.mark.parametrize("fmt", ["course", "pi", "claude-code", "codex"])
def test_show_prints_the_header_for_every_format(fmt: Format, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(sample_path(fmt))]) == 0
    out = capsys.readouterr().out
    session = load_session(sample_path(fmt))
    assert (
        f"format {fmt} · {len(session.entries)} entries on the active path · {len(session.skipped)} skipped lines"
        in out
    )
    tokens = build_context(
        session.entries,
        max_tokens=200_000,
        reserved_output=16_384,
        safety_margin=2_000,
        estimate_tokens=estimate_tokens_chars,
    ).tokens  # the documented defaults
    assert f"available for messages {tokens.available_for_messages:g} · total {tokens.total:g} of 200000" in out
    assert "reason within_budget:" in out


def test_show_prints_the_boundary_rows_and_counts_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(sample_path("pi")), "--max-tokens", "200", "--reserved-output", "20",
                 "--safety-margin", "0", "--estimator", "chars"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("reason trimmed:") for line in lines)
    table = lines[lines.index(next(line for line in lines if line.startswith("id "))) + 1 :]
    statuses = [line.split()[-1] for line in table if not line.startswith("…")]
    first_kept = statuses.index("kept")
    assert statuses[first_kept - 1] in ("dropped", "summarized", "skipped")
    assert table[-1].startswith("a7 ") and table[-3].startswith("a6 ")
    elided = [line for line in table if line.startswith("…")]
    assert elided and all(line.endswith("…") and "more entries (" in line for line in elided)
    shown = len(table) - len(elided)
    hidden = sum(int(line.split()[1]) for line in elided)
    assert shown + hidden == 22 + 1, "every path entry plus the summary row, shown or counted"


def test_show_with_the_bpe_estimator(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tiktoken")
    assert main(["show", str(sample_path("codex")), "--estimator", "bpe"]) == 0
    assert "estimator bpe" in capsys.readouterr().out


def test_help_states_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["show", "--help"])
    assert done.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(default 200000)" in out and "(default 16384)" in out and "(default 2000)" in out


def test_convert_writes_the_course_jsonl_and_never_overwrites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "claude.course.jsonl"
    assert main(["convert", str(sample_path("claude-code")), "-o", str(out)]) == 0
    assert "wrote 19 entries" in capsys.readouterr().out
    assert JsonlSessionStore.open(out).entries() == list(load_session(sample_path("claude-code")).entries)
    assert load_session(out).entries == load_session(sample_path("claude-code")).entries
    before = out.read_bytes()
    assert main(["convert", str(sample_path("pi")), "-o", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert out.read_bytes() == before


def test_bad_input_is_one_line_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "session", "version": 3, "id": "s"}\nnot json\n')
    assert main(["show", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2: not valid JSON" in err
    assert main(["convert", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["show", str(sample_path("pi")), "--max-tokens", "-5"])
    assert done.value.code == 2
    with pytest.raises(SystemExit) as done:
        main(["show", str(sample_path("pi")), "--format", "gemini"])
    assert done.value.code == 2


def test_show_speaks_chinese_whole(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """In Chinese every line of ``show`` is Chinese (issue 45): the header, the columns, the statuses, the counts;
    what stays is the log's own ids and roles, the format's and estimator's names and the reason's code."""
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert main(["show", str(sample_path("pi")), "--max-tokens", "200", "--reserved-output", "20",
                 "--safety-margin", "0"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("格式 pi · 活动路径上 ") and "估算器 chars" in lines[1]
    assert lines[2].startswith("system ") and "可用于消息" in lines[2]
    assert lines[3].startswith("原因：trimmed")
    assert lines[5].split() == ["id", "类型", "组", "成本", "状态"]
    statuses = {line.split()[-1] for line in lines[6:] if not line.startswith("…")}
    assert {"保留", "丢弃"} <= statuses and not statuses & {"kept", "dropped", "summarized", "skipped"}
    elided = [line for line in lines[6:] if line.startswith("…")]
    assert elided and all(line.startswith("…… 另有 ") and " 条 entry（" in line for line in elided)
    english = ("entries", "skipped lines", "available for messages", "more entries", "status", "reason ")
    assert [line for line in lines[1:] for word in english if word in line] == []
