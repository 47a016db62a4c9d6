"""Stage 7, similarity: exercise cells alike the course's own code or another student's, reported, never judged.

``similarity`` (a batch's exercise cells compared, copydetect's winnowing, as
MOSS does) and ``similarity_notes`` (the note a row carries, as the CSV, the
report and the feedback pages read it).
"""
