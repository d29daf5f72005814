"""One checked votes file in memory: small tables of comparisons and annotators, and per
vote three integer codes pointing into them.

Both readers (version 2: `_wide.unpack`; version 1 and writers' long frames:
`_checks.check_votes`) produce it, the cache of checked files (`_checked`) stores it, and
`read.read_annotations` merges several into one `Annotations`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


# eq=False: the fields are arrays, whose == compares element by element.
@dataclass(frozen=True, eq=False)
class CodedVotes:
    """The votes of one file, checked by the format's rules (on the columns read).

    comparisons: per comparison column (`dataset`, `comparison_id`, the other
        `schema.COMPARISON_COLUMNS` and any `meta.*` column read), one value per
        comparison, in the order comparisons first appear in the file.  A standard
        column the read left out is there with every value missing; a `meta.*` column it
        left out is absent.
    annotators: per `schema.ANNOTATOR_COLUMNS` name, one value per annotator, i.e. per
        distinct (role, judge, trait_id), in `schema.annotator_order`.
    comparison: per vote, the position of its comparison in `comparisons`.
    annotator: per vote, the position of its annotator in `annotators`.
    vote: per vote, its code from `schema.VOTE_CODES` (never `schema.NO_VOTE`).

    Votes are in the file's order (in a version 2 file: comparison by comparison, and
    within one by annotator, then seed).
    """

    comparisons: dict[str, pd.Categorical]
    annotators: dict[str, pd.Categorical]
    comparison: np.ndarray
    annotator: np.ndarray
    vote: np.ndarray

    @property
    def n_comparisons(self) -> int:
        return len(self.comparisons["dataset"])

    @property
    def n_annotators(self) -> int:
        return len(self.annotators["role"])

    @property
    def n_votes(self) -> int:
        return len(self.vote)
