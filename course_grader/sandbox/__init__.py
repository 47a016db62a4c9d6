"""Stage 2, sandbox: a kernel that runs the learner's cells and can neither escape nor outlast its limits.

``view`` (the package view the kernel sees, the lab's reference stubbed out),
``kernel`` (the bubblewrap-isolated kernel and its ``Limits``), ``cgroup`` and
``cpu_clock`` (memory and CPU time charged to the kernel), ``relay`` and
``replies`` (messages from the kernel, bounded), ``learner_account`` and
``learner_kernel`` (Gradescope mode's kernel as an unused uid).
"""
