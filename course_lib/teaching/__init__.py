"""The course's own material around the chapter: its rules, labs, words and languages.

Not the chapter's code (that is ``course_lib``'s top level, read whole) but what
teaches it: the rules catalogue every check and page cites (``rules``), the lab
registry (``lab_registry``), the helpers a lab notebook calls (``lab_helpers``),
how a check words what it saw (``wording``, ``json_diff``, ``one_line``), the
reader's language and its catalogs (``i18n``, ``locale/``), the glossary and the
catalogues of examples the notebooks show. Nothing here is imported by the
chapter's modules.
"""
