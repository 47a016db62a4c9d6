"""The course's catalogues of inputs, one per rule family, each entry citing its rule.

Every family the chapter talks about is written here once: malformed and
unusual compaction records (R1–R4, ``compactions``), broken tool facts
(R11, R12, ``broken_tool_facts``, written in the chapter's ``shorthand``) and
budget refusals (R15, ``budgets``); the
chapter's sessions are ``course_lib.fixtures``. The checklist, the
grader's hidden cases, the labs' tables (through ``course_lib.teaching.lab_helpers``)
and the tests all read them, so a new edge case is one line here and every
layer tries it.
"""
