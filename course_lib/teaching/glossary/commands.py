"""The chapter's commands beside the course's: the checklist first, then what else a reader runs (README).

The chapter runs its fifteen-test checklist with Node's test runner; the course runs the
same checks with ``python -m course_lib.checklist``. The other commands are the course's
own (README, "Other commands"); the chapter has none of them.
"""

from __future__ import annotations

from .row import Command

CHECKLIST_COMMANDS: tuple[Command, ...] = (
    Command(
        "python -m course_lib.checklist",
        "node --test …",
        "the fifteen checks of the checklist against the reference; exit status 0 only if all pass",
        "针对参考实现运行 checklist 的全部十五项检查；只有全部通过时退出状态才为 0",
    ),
    Command(
        "python -m course_lib.checklist --lab 11.3",
        'node --test --test-name-pattern="Lab 11.3" …',
        "one lab's checks (11.1 to 11.5); in a lab, its `checklist` cell runs them against your own functions",
        "只运行一个 lab 的检查（11.1 到 11.5）；在 lab 中，它的 `checklist` 单元格针对你自己的函数运行这些检查",
    ),
    Command(
        "python -m course_lib.checklist --lab capstone",
        "",
        "the capstone's checks (16–19, not among the fifteen: L1–L6)",
        "综合练习的检查（16–19，不在那十五项之内：L1–L6）",
    ),
    Command("make checklist", "", "the fifteen checks against the reference", "针对参考实现运行那十五项检查"),
)

COURSE_COMMANDS: tuple[Command, ...] = (
    Command(
        "make lab",
        "",
        "creates `.venv` if missing and opens JupyterLab on the start page",
        "在 `.venv` 不存在时创建它，并在起始页上打开 JupyterLab",
    ),
    Command(
        "make test",
        "",
        "the unit tests and nbval over every notebook",
        "运行单元测试，并用 nbval 检查每一个 notebook",
    ),
    Command(
        "course-session show LOG.jsonl --estimator bpe",
        "",
        "shows what `build_context` would send from a real agent log's active path (pi, Claude Code, Codex or "
        "the course's own JSONL)",
        "显示 `build_context` 会从一个真实 agent 日志（pi、Claude Code、Codex 或课程自己的 JSONL）的活动路径发送什么",
    ),
    Command(
        "course-session convert LOG.jsonl -o LOG.course.jsonl",
        "",
        "writes a log's active path as the course's JSONL (never overwrites a file)",
        "把一个日志的活动路径写成课程的 JSONL（从不覆盖已有文件）",
    ),
    Command(
        "course-grade alice_lab_11_3.ipynb --results results.json",
        "",
        "grades one submitted notebook in a sandbox (for instructors: docs/grading.md)",
        "在沙箱中为一个提交的 notebook 评分（供教师使用：docs/grading.md）",
    ),
    Command(
        "make test-sandboxed",
        "",
        "the grader end to end in real sandboxes (needs root)",
        "在真实沙箱中端到端地测试评分器（需要 root）",
    ),
    Command(
        "make test-unit", "", "pytest over `tests/` only (no notebooks)", "只在 `tests/` 上运行 pytest（不含 notebook）"
    ),
    Command(
        "make test-notebooks",
        "",
        "nbval over `notebooks/` and `labs/` only",
        "只用 nbval 检查 `notebooks/` 和 `labs/`",
    ),
    Command(
        "make test-pythons",
        "",
        "the whole suite on Python 3.11, 3.12 and 3.13 with nox",
        "用 nox 在 Python 3.11、3.12 和 3.13 上运行整套测试",
    ),
    Command(
        "make book",
        "",
        "builds the course website into `build/book`, offline",
        "离线地把课程网站构建到 `build/book` 中",
    ),
    Command(
        "make test-browser",
        "",
        "the explorer and the website in a headless Chromium",
        "在无界面的 Chromium 中测试投影浏览器和课程网站",
    ),
    Command(
        "make mutants",
        "",
        "plausible learner mistakes, judged by the grader and each lab's checklist",
        "让评分器和每个 lab 的 checklist 评判一批看似合理的学习者错误",
    ),
    Command(
        "make bench",
        "",
        "what users wait for, each as a ratio to its floor (about 15 minutes)",
        "测量用户要等待的各项操作，每项都表示为与其下限之比（大约 15 分钟）",
    ),
    Command(
        "make learner-labs",
        "",
        "regenerates every notebook from its text source and executes it",
        "从文本源重新生成每一个 notebook 并执行它",
    ),
    Command(
        "make notebooks",
        "",
        "re-executes every notebook in place",
        "原地重新执行每一个 notebook",
    ),
    Command(
        "make rules",
        "",
        "writes `docs/rules.md` from `course_lib/teaching/rules.py`",
        "根据 `course_lib/teaching/rules.py` 写出 `docs/rules.md`",
    ),
    Command(
        "make translations",
        "",
        "how much of each catalog is translated; fails unless every catalog is whole",
        "显示每个 catalog 翻译了多少；只要有一个 catalog 不完整就失败",
    ),
    Command(
        "make glossary",
        "",
        "writes this glossary, both pages, from `course_lib/teaching/glossary/`",
        "根据 `course_lib/teaching/glossary/` 写出本术语表的两个页面",
    ),
    Command(
        "python -m course_lib.teaching.glossary --language zh",
        "",
        "prints the Chinese page of this glossary",
        "打印本术语表的中文页面",
    ),
)

COMMANDS: tuple[Command, ...] = CHECKLIST_COMMANDS + COURSE_COMMANDS
