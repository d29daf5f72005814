"""`ffsite annotate`: a model's answers and a judge's trait votes on them (the LLM judge
over an OpenAI-compatible API, or any other `ffsite.judges.judge.Judge`).

`inputs.py` reads the prompt set, given answers and trait lists; `plan.py` makes the
comparisons and calls; `prompt.py` and `llm_judge.py` are the LLM judge; `votes.py` lays
votes out as file rows; `run.py` is the method; `contrib.py` checks a contributed file
against the site it joins.
"""
