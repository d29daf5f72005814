"""`ffsite protocol run`: a new model through a dataset's own protocol, on the skeleton.

- `spec.py`: what a protocol says (the data a dataset's folder declares: prompts and
  judge instructions read from its base data, judges or panel, scale, repetitions);
- `setup.py`: from a protocol's name and the user's choices to the method;
- `scored.py`: judges score the model's answers on the dataset's rubric (a scores file);
- `panel.py` and `design.py`: a panel compares two models' answers per trait (a votes
  file for Bradley-Terry ratings), its comparisons and judges assigned in balance;
- `votes.py`: Feedback Forensics' judge on a prompt set (`ffsite annotate`'s method);
- `compare.py`: whether a run is comparable with the dataset's numbers or kept apart;
- `contrib.py`: a protocol run's file checked against a site (`ffsite validate`);
- `parse.py`: reading judges' replies; `show.py`: `ffsite protocol show`.
"""
