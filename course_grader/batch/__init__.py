"""Stage 6, batch: a folder of submissions graded as independent jobs, one row each.

``batch`` (a folder graded into rows, duplicates flagged, a starved or dead
worker's submission graded again alone) in a ``worker_pool`` (a worker per job
whose job is known), cleaned up after by ``worker_cleanup``, with ``ungraded``
rows for what could not be graded.
"""
