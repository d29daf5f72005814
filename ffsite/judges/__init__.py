"""Judges that need no model API: text statistics of single responses and of pairs.

`communication` computes AA-PersonalityBench's 21 communication traits of one response;
`rules` is the rule-based pairwise trait judge built on the same per-response numbers.
"""
