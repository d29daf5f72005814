"""The trait matrix's shortcut for files where every comparison has the same annotators
(one vote per trait) gives exactly what combining keyed votes gives."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import trait, write_test_votes

from ffsite.format.read import read_annotations
from ffsite.metrics import strength

TRAITS = [trait("is more verbose"), trait("is friendlier"), trait("uses more lists")]


def _file(tmp_path, every_trait_everywhere: bool):
    rng = np.random.default_rng(5)
    comparisons, votes = [], []
    for i in range(40):
        cid = f"c{i:02d}"
        comparisons.append({"comparison_id": cid, "model_a": f"m{i % 3}",
                            "model_b": f"m{(i + 1) % 3}"})
        votes.append({"comparison_id": cid, "role": "preference", "judge": "human",
                      "vote": "AB"[i % 2]})
        for t in TRAITS:
            if every_trait_everywhere or i % 7:
                votes.append({"comparison_id": cid, **t, "judge": "j",
                              "vote": rng.choice(["A", "B", "tie", "neither", "invalid"])})
    return write_test_votes(tmp_path / "v.parquet", comparisons, votes)


@pytest.mark.parametrize("every_trait_everywhere", [True, False])
def test_the_shortcut_matches_the_general_path(tmp_path, monkeypatch, every_trait_everywhere):
    annotations = read_annotations([_file(tmp_path, every_trait_everywhere)])
    used = []
    grid = strength._grid_matrix
    monkeypatch.setattr(strength, "_grid_matrix", lambda *a: used.append(1) or grid(*a))
    fast = strength.trait_votes(annotations)
    assert (grid(annotations.votes, len(annotations.comparisons),
                 *_annotator_traits(annotations)) is not None) == every_trait_everywhere
    monkeypatch.setattr(strength, "_grid_matrix", lambda *a: None)
    general = strength.trait_votes(annotations)
    assert used and np.array_equal(fast.matrix, general.matrix)
    assert fast.matrix.flags.c_contiguous and fast.matrix.dtype == np.int8
    assert (fast.matrix != 0).sum() == (120 if every_trait_everywhere else 3 * 34)


def _annotator_traits(annotations):
    traits = annotations.traits()
    index = {t: i for i, t in enumerate(traits["trait_id"])}
    codes = np.array([index.get(t, -1) if r == "trait" else -1 for r, t in zip(
        annotations.annotators["role"], annotations.annotators["trait_id"], strict=True)])
    return codes, len(traits)
