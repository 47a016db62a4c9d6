"""Stage 2, sandbox: a kernel that runs the learner's cells and can neither escape nor outlast its limits.

``view`` (the package view the kernel sees, the lab's reference stubbed out),
``kernel`` (the ``Sandbox``: the kernel's life and its cells), ``limits`` (the
``Limits`` of one submission), ``bubblewrap`` (the isolating command line),
``kernel_launch`` (the kernel's manager, client and environment),
``cell_run`` (what a cell came to), ``cgroup`` and ``cpu_clock`` (memory and
CPU time charged to the kernel), ``relay``, ``relay_process`` and ``replies``
(messages from the kernel, bounded), ``learner_account`` and
``learner_kernel`` (Gradescope mode's kernel as an unused uid).
"""
