"""Personality indices from per-trait Elo (ffsite.metrics.indices)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.metrics.indices import (
    AA_INDICES,
    FF_INDICES,
    Index,
    indices_table,
    percentile_ranks,
)
from ffsite.traits import AA30, AA30_NAMES, FF_V1


def ratings(rows: list[tuple[str, str, float, float, float]]) -> pd.DataFrame:
    """A ratings frame from (trait_id, model, elo, ci_low, ci_high)."""
    frame = pd.DataFrame(rows, columns=["trait_id", "model", "elo", "ci_low", "ci_high"])
    return frame.assign(description="", rank=1, n=10)


def by_model(table: pd.DataFrame, index: str) -> pd.DataFrame:
    return table[table["index"] == index].set_index("model")


def test_percentile_ranks_by_hand():
    # Lowest 1, highest 100; the two 2s share ranks 2 and 3: 1 + 99 * 1.5 / 3 = 50.5.
    assert percentile_ranks(np.array([3.0, 1.0, 2.0, 2.0])).tolist() == [100, 1, 50.5, 50.5]
    assert percentile_ranks(np.array([5.0, np.nan, 7.0])).tolist()[::2] == [1, 100]
    assert percentile_ranks(np.array([4.0])).tolist() == [100]


def test_z_scores_not_raw_elo_decide_the_order():
    # t1 spreads widely, t2 narrowly.  Raw averages: X 1200, Y 1005, Z 1010 -> X first.
    # z (population sd): t1 X 1.414, Y -0.707, Z -0.707; t2 X -1.225, Y 0, Z 1.225.
    # Means: X 0.095, Y -0.354, Z 0.259 -> Z 100, X 50.5, Y 1.
    index = Index("Both", "", ("t1", "t2"))
    frame = ratings([("t1", "X", 1400, 1400, 1400), ("t1", "Y", 1000, 1000, 1000),
                     ("t1", "Z", 1000, 1000, 1000), ("t2", "X", 1000, 1000, 1000),
                     ("t2", "Y", 1010, 1010, 1010), ("t2", "Z", 1020, 1020, 1020)])
    scores = by_model(indices_table(frame, [index]), "Both")["score"].to_dict()
    assert scores == {"X": 50.5, "Y": 1.0, "Z": 100.0}


HAND = ratings([
    ("t1", "A", 1100, 1050, 1150), ("t1", "B", 1000, 1000, 1000), ("t1", "C", 900, 850, 960),
    ("t2", "A", 1000, 950, 1020), ("t2", "B", 1200, 1100, 1250), ("t2", "C", 1000, 980, 1300),
])
ONE_REVERSED = Index("Calm", "", ("t1", "t2"), reversed=("t2",))


def test_reversed_trait_and_scores_by_hand():
    # t1 z: A 1.225, B 0, C -1.225.  t2 z: A -0.707, B 1.414, C -0.707, negated as
    # reversed: A 0.707, B -1.414, C 0.707.  Means: A 0.966, B -0.707, C -0.259.
    calm = by_model(indices_table(HAND, [ONE_REVERSED]), "Calm")
    assert calm["score"].to_dict() == {"A": 100.0, "B": 1.0, "C": 50.5}
    assert (calm["traits_used"] == 2).all()


def test_interval_by_hand():
    calm = by_model(indices_table(HAND, [ONE_REVERSED]), "Calm")
    # C at its low end: t1 at 850 (its lower bound), t2 at 1300 (upper: reversed).
    # t1: A 1100, B 1000, C 850 -> z A 1.136, B 0.162, C -1.298.
    # t2: A 1000, B 1200, C 1300 -> z A -1.336, B 0.267, C 1.069; negated A 1.336,
    # B -0.267, C -1.069.  Means: A 1.236, B -0.053, C -1.183 -> C is last: 1.
    assert calm.loc["C", "ci_low"] == 1.0
    # C at its high end: t1 960, t2 980.  t1: A 1100, B 1000, C 960 -> z A 1.359,
    # B -0.340, C -1.019; t2: A 1000, B 1200, C 980 -> z A -0.604, B 1.409, C -0.805,
    # negated A 0.604, B -1.409, C 0.805.  Means: A 0.981, B -0.874, C -0.107 -> C stays
    # in the middle.
    assert calm.loc["C", "ci_high"] == 50.5
    # B at its high end: t1 1000, t2 1100 (lower bound, reversed) -> z t1 A 1.225,
    # B 0, C -1.225; t2: A 1000, B 1100, C 1000 -> z A -0.707, B 1.414, C -0.707,
    # negated A 0.707, B -1.414, C 0.707: B still last -> 1.
    assert calm.loc["B", "ci_high"] == 1.0
    assert (calm["ci_low"] <= calm["score"]).all() and (calm["score"] <= calm["ci_high"]).all()
    assert calm["ci_low"].between(1, 100).all() and calm["ci_high"].between(1, 100).all()


def test_only_rated_traits_are_used():
    by_name = {name: trait_id for trait_id, name in AA30_NAMES.items()}
    frame = ratings([(by_name[name], model, elo, elo - 50, elo + 50)
                     for name, elos in (("Truthful", (1000, 1100, 900)),
                                        ("Sycophantic", (1000, 800, 1200)))
                     for model, elo in zip("ABC", elos, strict=True)])
    table = indices_table(frame, AA_INDICES)
    assert set(table["index"]) == {"Transparency"}  # no other index has a rated trait
    transparency = by_model(table, "Transparency")
    assert (transparency["traits_used"] == 2).all()
    # B is most truthful and least sycophantic (reversed): top; C the opposite.
    assert transparency["score"].to_dict() == {"A": 50.5, "B": 100.0, "C": 1.0}


def test_groupings_cover_their_trait_sets():
    aa_members = [t for index in AA_INDICES for t in index.traits]
    assert sorted(aa_members) == sorted(t.id for t in AA30)
    transparency = next(i for i in AA_INDICES if i.name == "Transparency")
    assert [AA30_NAMES[t] for t in transparency.reversed] == ["Sycophantic"]
    assert [i.name for i in AA_INDICES] == ["Expressiveness", "Organization",
                                            "Informativeness", "Transparency", "Warmth",
                                            "Conviction", "Imagination", "Slop"]
    ff_members = [t for index in FF_INDICES for t in index.traits]
    assert sorted(ff_members) == sorted(t.id for t in FF_V1)  # each FF trait exactly once
    short = {t.id: t.short for t in FF_V1}
    verbosity = next(i for i in FF_INDICES if i.name == "Verbosity")
    assert [short[t] for t in verbosity.reversed] == ["is more concise"]
    assert not {i.name for i in FF_INDICES} & {i.name for i in AA_INDICES}


def test_no_rated_trait_no_rows():
    table = indices_table(ratings([("zz", "A", 1000, 1000, 1000)]), FF_INDICES)
    assert table.empty
    assert list(table.columns) == ["model", "index", "score", "ci_low", "ci_high",
                                   "traits_used"]


def test_model_missing_from_a_trait_uses_the_others():
    # C not rated on t2.  t1 z: A 1.225, B 0, C -1.225; t2 (A 1000, B 1200) z: A -1, B 1,
    # negated A 1, B -1.  Means: A 1.112, B -0.5, C -1.225 -> A 100, B 50.5, C 1.
    frame = HAND[~((HAND["trait_id"] == "t2") & (HAND["model"] == "C"))]
    calm = by_model(indices_table(frame, [ONE_REVERSED]), "Calm")
    assert calm["traits_used"].to_dict() == {"A": 2, "B": 2, "C": 1}
    assert calm["score"].to_dict() == {"A": 100.0, "B": 50.5, "C": 1.0}
