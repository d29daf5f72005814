"""Everything that calls a model API: the API layer, one run skeleton, one sub-package per
collecting method.

- `api/`: client, cache, prices and cost, the budget, calls, the session, estimates;
- `run.py`: the skeleton every method plugs into (its docstring says how), with the
  checks and the report every method shares; `files.py`: where the files go;
  `shared.py`: the generation request and the verdict parser more than one method uses;
- `annotate/`: `ffsite annotate` (a model's answers judged trait by trait);
- `eigenbench/`: `ffsite eigenbench run` (models judging each other);
- `lmlpa/`: `ffsite lmlpa run` (the Big Five from open-ended answers, rated).
"""
