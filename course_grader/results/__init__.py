"""Stage 4, results: verdicts made into the term's records — scores, the CSV, the run's files.

``course_settings`` (the term's course file as written: points, weights,
deadlines, per-lab limits), ``course_file`` (loading it, refusing bad input),
``manifest`` (when each file was submitted, matched to the files), the LMS's
own times files (``lms_times``: Moodle's ``moodle_worksheet``, Canvas's
``canvas_submissions``, read by ``times_files``, matched by the ids in the
download names by ``times_matching``), ``course``
(the settings resolved, as grading uses them), ``submission_times`` (a
submission's time, days late), ``scoring`` (points, weights, late penalty),
``records`` (``grades.jsonl``), ``grades_csv`` (the CSV as a format: write,
read back), ``grades_frame`` (a batch's rows as that CSV), ``shard_check`` and
``merge`` (shards refused or joined), ``term_merge`` (a term's CSVs and its
regrades joined, and their records), ``discovery`` (the submissions in a
folder), ``batch`` (a folder graded into rows) in a ``worker_pool``, cleaned
up after by ``worker_cleanup``, with ``ungraded`` rows for what could not be
graded, ``similarity`` (copies flagged on the rows), ``gradescope``
(``results.json``).
"""
