"""Stage 4, results: verdicts made into the term's records — scores, the CSV, the run's files.

``course`` (the term's course file: points, weights, deadlines, per-lab
limits), ``scoring`` (points, weights, late penalty), ``records``
(``grades.jsonl``), ``grades_csv`` (the CSV as a format: write, read back),
``shard_check`` and ``merge`` (shards refused or joined), ``term_merge`` (a
term's CSVs and its regrades joined, and their records), ``batch`` (a folder
graded into rows), ``similarity`` (copies flagged on the rows),
``gradescope`` (``results.json``).
"""
