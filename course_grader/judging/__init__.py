"""Stage 3, judging: one notebook's verdict, decided outside the kernel.

``hidden`` (a hidden case and its verdict), ``generate`` (random sessions for
the hidden cases), ``labs/`` (one module per lab: its generated cases and its
seeded covering set, made with ``calls``, ``draws`` and ``shapes``),
``lab_cases`` (which module is each lab's), ``hidden_cases`` and ``covering``
(a lab's hidden tests and its covering set, by lab id), ``practice`` (a shrunk
counterexample per failed hidden test), ``diagnose`` (why a cell failed, in the learner's words),
``citations`` (the rules each test checks), ``verdicts`` (the result as data),
``grade`` (one notebook: sandbox, checklist, hidden calls, verdict).
"""
