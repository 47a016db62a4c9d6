"""Each lab's hidden cases in one module: ``lab_11_1`` … ``lab_11_5`` and ``capstone``.

A lab's module defines ``hidden(rng)``, the cases drawn from the run's seed,
and ``covering(draw)``, its covering set (fixed shapes, drawn ids, texts and
numbers); ``course_grader.judging.lab_cases`` lists each module once.
``build_context`` holds what Labs 11.3 and 11.5 share (both grade
``build_context``); what several labs' covering sets start from is in
``course_grader.judging.shapes``.
"""
