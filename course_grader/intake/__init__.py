"""Stage 1, intake: what arrives — a notebook or an upload, whose it is, which shard grades it.

Reads only; judges nothing. ``notebook`` (find the lab, the exercise cells, the
lab's setup), ``upload`` (which uploaded notebook an autograder grades),
``roster`` (who a file belongs to: LMS download names and the roster),
``roster_formats`` (the roster file: the pack's CSV or the LMS's own export),
``shard`` (``--shard I/N``: which files this machine grades), ``selection``
(``--only``: which files a partial regrade grades).
"""
