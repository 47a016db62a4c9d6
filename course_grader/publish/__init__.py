"""Stage 5, publish: what people read — feedback pages, the class report, the gradebook export.

``pages`` (the templates, ``templates/``), ``feedback`` (one page per graded
notebook, and their index), ``report`` (the class report), ``gradebook``
(Canvas's and Moodle's import files).
"""
