"""Stage 1, intake: what arrives — a notebook or an upload, whose it is, which shard grades it.

Reads only; judges nothing. ``notebook`` (a submission read: its lab and
exercise cells), ``regular_file`` (only a regular file of bounded size is
read), ``lab_names`` (the lab its file name or metadata names), ``cells`` (the
exercise and setup cells), ``lab_templates`` (the course's copy of each lab),
``identity`` (whose a file is, how results name it), ``upload`` (which
uploaded notebook an autograder grades), ``roster`` (who a file belongs to:
LMS download names and the roster), ``roster_formats`` (the roster file: the
pack's CSV or the LMS's own export), ``shard`` (``--shard I/N``: which files
this machine grades), ``discovery`` (the submissions in a folder, links and
special files refused unopened), ``selection`` (``--only``: which files a partial
regrade grades).
"""
