"""Trait agreement (kappa, relevance overlap) against scikit-learn and plain counting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from ffsite.metrics.agreement import trait_agreement
from ffsite.metrics.strength import TraitVotes


def test_matches_sklearn_and_counting_with_traits_out_of_scope():
    rng = np.random.default_rng(3)
    n, n_traits = 400, 5
    matrix = rng.choice([0, 1, 2, 3, 4, 5], size=(n, n_traits),
                        p=[.05, .3, .3, .1, .2, .05]).astype(np.int8)
    dataset = (np.arange(n) >= 250).astype(np.int32)
    in_scope = np.ones((2, n_traits), dtype=bool)
    in_scope[1, 4] = False  # trait 4 was never asked in the second dataset
    matrix[dataset == 1, 4] = 0
    ids = [f"t{i}" for i in range(n_traits)]
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ids}), matrix=matrix,
                       dataset_code=dataset, datasets=["d0", "d1"], in_scope=in_scope)
    table = trait_agreement(votes).set_index(
        ["trait_id_a", "trait_id_b"])
    assert len(table) == n_traits * (n_traits - 1) // 2
    for i in range(n_traits):
        for j in range(i + 1, n_traits):
            rows = in_scope[dataset, i] & in_scope[dataset, j]
            first, second = matrix[rows, i], matrix[rows, j]
            relevant_first, relevant_second = np.isin(first, [1, 2]), np.isin(second, [1, 2])
            both = relevant_first & relevant_second
            either = relevant_first | relevant_second
            row = table.loc[(f"t{i}", f"t{j}")]
            assert row["both_relevant"] == both.sum()
            assert row["either_relevant"] == either.sum()
            assert row["overlap"] == pytest.approx(both.sum() / either.sum())
            assert row["cohens_kappa"] == pytest.approx(
                cohen_kappa_score(first[both], second[both]))


def test_undefined_kappa_is_missing_not_a_number():
    matrix = np.array([[1, 1], [1, 1], [0, 2]], dtype=np.int8)  # only one label shared
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ["a", "b"]}), matrix=matrix,
                       dataset_code=np.zeros(3, np.int32), datasets=["d"],
                       in_scope=np.ones((1, 2), dtype=bool))
    (row,) = trait_agreement(votes).itertuples()
    assert np.isnan(row.cohens_kappa)
    assert row.overlap == pytest.approx(2 / 3)
