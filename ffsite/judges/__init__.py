"""Judges: the seam every judge fits (`judge`), and the judges that need no model API.

`communication` computes AA-PersonalityBench's 21 communication traits of one response;
`rules` is the rule-based pairwise trait judge built on the same per-response numbers;
`apply` runs them over a dataset's responses.
"""
