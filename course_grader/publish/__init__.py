"""Stage 8, publish: what people read — feedback pages, the class report, the gradebook export.

``pages`` (the templates, ``templates/``), ``feedback`` (one page per graded
notebook, and their index; ``course-grade feedback``), ``feedback_page`` (one
page), ``page_names`` (its file name), ``page_score`` (the score it shows),
``recorded_course`` (pages from records, scored as the gradebook was),
``report`` (the class report; its input ``report_grades``, its numbers
``report_statistics`` and ``report_messages``, its charts ``report_charts``),
``gradebook`` (Canvas's and Moodle's import files).
"""
