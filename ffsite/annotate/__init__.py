"""`ffsite annotate`: answers and LLM-judge trait votes through an OpenAI-compatible API."""
