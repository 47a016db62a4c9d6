"""Stage 4, course: what the instructor's course file makes of a verdict — whose it is, when it came in, what it is worth.

After judging, because the course file weighs a lab's tests by the names judging
gives them; before results, which score by it. ``course_settings`` (the course
file as written: points, weights, deadlines, per-lab limits, overrides and
extensions, with ``per_student`` entries), ``course_file`` (loading it, refusing
bad input, fingerprinting it), ``course`` (the settings resolved, as grading
uses them); the submission times: ``manifest`` (the pack's times file), the
LMS's own (``lms_times``: Moodle's ``moodle_worksheet``, Canvas's
``canvas_submissions``), read by ``times_files`` and matched to the files by
the ids in the download names (``times_matching``), and ``submission_times``
(a submission's time and days late).
"""
