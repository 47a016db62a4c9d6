"""One module per lab for its checklist checks (``lab_11_1.py`` … ``lab_11_5.py``, ``capstone.py``).

Each lists its own checks with a ``LabChecks`` (``check.py``); ``cases.py`` puts
the labs in order. ``shared.py`` holds what several labs' checks use.
"""
