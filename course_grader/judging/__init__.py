"""Stage 3, judging: one notebook's verdict, decided outside the kernel.

``hidden`` (a hidden case and its verdict), ``generate`` (random sessions for
the hidden cases), ``labs/`` (one module per lab: its generated cases and its
seeded covering set, made with ``calls``, ``draws`` and ``shapes``),
``lab_cases`` (which module is each lab's), ``hidden_cases`` and ``covering``
(a lab's hidden tests and its covering set, by lab id), ``practice`` (a shrunk
counterexample per failed hidden test), ``diagnose`` (why a cell failed, in the learner's words),
``citations`` (the rules each test checks), ``verdicts`` (the result as data),
``grade_options`` (how a notebook is graded), ``kernel_run`` (its cells run in the
sandbox: setup, exercises, checks, hidden calls), ``cell_replies`` (what each
grading cell reported), ``assemble`` (the verdict from what ran) and ``grade``
(one notebook end to end, never raising).
"""
