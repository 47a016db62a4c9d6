"""Stage 5, results: verdicts made into the term's records — scores, the CSV, the run's files.

``scoring`` (points, weights, late penalty, overrides, per the ``course``),
``records`` (``grades.jsonl``), ``grades_csv`` (the CSV as a format: write, read
back), ``grades_frame`` (a batch's rows as that CSV), ``rescore`` (a CSV scored
again under another course file), ``shard_check`` and ``merge`` (shards refused
or joined), ``term_merge`` (a term's CSVs and its regrades joined, and their
records), ``gradescope`` (``results.json``).
"""
