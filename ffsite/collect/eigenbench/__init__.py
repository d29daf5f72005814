"""`ffsite eigenbench run`: models answer scenarios, then judge each other's answers
against a constitution (docs/eigenbench.md).

`constitution.py` and `scenarios.py` read the inputs; `design.py` decides who judges
what; `prompt.py` holds the judge prompts; `run.py` is the method.
"""
