"""Stage 3, judging: one notebook's verdict, decided outside the kernel.

``hidden`` (a hidden case and its verdict), ``generate`` (random sessions for
the hidden cases), ``hidden_cases`` and ``covering`` (each lab's generated cases
and its seeded covering set), ``practice`` (a shrunk counterexample per failed
hidden test), ``diagnose`` (why a cell failed, in the learner's words),
``citations`` (the rules each test checks), ``verdicts`` (the result as data),
``grade`` (one notebook: sandbox, checklist, hidden calls, verdict).
"""
