"""``course-grade report grades.csv -o report.html``: the class picture, made by ``publish/report.py``.

Its options and output are the report's own; matplotlib loads only when a
report is asked for, so the other verbs start without it.
"""

from __future__ import annotations


def main(argv: list[str]) -> int:
    from ..publish.report import main as report_main  # matplotlib loads only for the report

    return report_main(argv)
