"""`ffsite annotate`: a model's answers and a judge's trait votes on them (the LLM judge
over an OpenAI-compatible API, or any other `ffsite.judges.judge.Judge`)."""
