"""`ffsite lmlpa run`: a model answers LMLPA's items, a rater scores the answers, and the
ratings become a scores file (docs/lmlpa.md).

`prompt.py` holds the two prompts and reads the rater's replies; `run.py` is the method.
"""
