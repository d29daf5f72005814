"""Ranks that respect uncertainty, the signal test and mirror traits, checked on
examples worked by hand (ffsite/metrics/ranking.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ffsite.metrics.ranking import has_signal, interval_ranks, mirror_traits
from ffsite.metrics.ratings import shared_ranks

NAN = float("nan")


def test_ranks_share_where_intervals_overlap():
    # Intervals: A [0.5, 0.7], B [0.6, 0.8], C [0.1, 0.55], D [0.0, 0.2], E [-0.5, -0.3].
    low = np.array([0.5, 0.6, 0.1, 0.0, -0.5])
    high = np.array([0.7, 0.8, 0.55, 0.2, -0.3])
    # Highest first: above A nobody (B overlaps); above B nobody; above C: B (0.6 > 0.55);
    # above D: A, B (C overlaps, 0.1 < 0.2); above E: all four.
    assert interval_ranks(low, high).tolist() == [1, 1, 2, 3, 5]
    # Lowest first: below E nobody; below D: E; below C: E (D overlaps: 0.2 > 0.1);
    # below A: D, E (C overlaps: 0.55 > 0.5); below B: C (0.55 < 0.6), D, E.
    assert interval_ranks(low, high, highest_first=False).tolist() == [3, 4, 2, 2, 1]
    # The same rule as the ratings' ranks.
    assert interval_ranks(low, high).tolist() == shared_ranks(low, high).tolist()


def test_touching_intervals_overlap_and_unknown_bounds_get_no_rank():
    low = np.array([1.0, 0.0, NAN])
    high = np.array([2.0, 1.0, NAN])
    assert interval_ranks(low, high).tolist() == [1, 1, 0]  # [0, 1] touches [1, 2]


def test_signal_against_a_null_band():
    low, high = np.array([-0.02, 0.01]), np.array([0.03, 0.049])
    assert not has_signal(low, high, null=0.0, band=0.05)  # 0.049 is inside the band
    assert has_signal(low, high, null=0.0)  # but 0.01..0.049 excludes zero itself
    assert has_signal(np.array([-0.2]), np.array([-0.06]), null=0.0, band=0.05)
    assert not has_signal(np.array([NAN]), np.array([NAN]), null=0.0)


def test_signal_without_a_null_needs_two_disjoint_intervals():
    assert not has_signal(np.array([1.0, 1.5, 0.5]), np.array([2.0, 2.5, 1.6]))
    assert has_signal(np.array([1.0, 2.1]), np.array([2.0, 3.0]))
    assert not has_signal(np.array([1.0]), np.array([2.0]))  # one model: nothing to say


def test_mirror_traits_found_from_the_values():
    values = pd.DataFrame({
        "verbose": [0.5, -0.25, NAN],
        "concise": [-0.5, 0.25, NAN],  # minus verbose everywhere: a mirror
        "lists": [0.5, 0.25, NAN],
        "half": [-0.5, 0.25, 0.0],  # differs in one model (and in who is missing)
        "zero1": [0.0, 0.0, 0.0],
        "zero2": [0.0, 0.0, 0.0],  # zeros say nothing: not mirrors
    })
    order = ["verbose", "lists", "concise", "half", "zero1", "zero2"]
    assert mirror_traits(values, order) == {"concise": "verbose"}
    # The first in the order is kept.
    assert mirror_traits(values, ["concise", "verbose"]) == {"verbose": "concise"}


# ------------------------------------------------ paired differences (ffsite.metrics.differences)

def _paired_file(tmp_path):
    """Models A and B each against the reference R on the same prompts p1..p3:
    A's outcomes +1, +1, -1; B's +1, 0 (neither), -1 (sides alternate)."""
    from helpers import trait, write_test_votes

    verbose = trait("is more verbose")
    rows = [("a1", "p1", "A", "R", "A"), ("a2", "p2", "R", "A", "B"),
            ("a3", "p3", "A", "R", "B"), ("b1", "p1", "R", "B", "B"),
            ("b2", "p2", "B", "R", "neither"), ("b3", "p3", "R", "B", "A")]
    comparisons = [{"comparison_id": c, "prompt_id": p, "model_a": a, "model_b": b}
                   for c, p, a, b, _ in rows]
    votes = [{"comparison_id": c, **verbose, "judge": "j", "vote": v}
             for c, *_, v in rows]
    return write_test_votes(tmp_path / "paired.parquet", comparisons, votes)


def test_paired_difference_interval_by_hand(tmp_path):
    from ffsite.format import read_annotations
    from ffsite.metrics import results
    from ffsite.metrics.differences import (
        Z95,
        difference_halfwidths,
        prompt_count,
        strength_covariance,
    )

    annotations = read_annotations([_paired_file(tmp_path)])
    votes = results.trait_votes(annotations)
    found = results.model_results(annotations, votes, "R", 1)
    strengths = found.traits.set_index("model")["strength"]
    assert strengths["A"] == pytest.approx(1 / 3) and strengths["B"] == 0.0
    reference = found.reference
    gram = strength_covariance(annotations, votes, reference)
    assert prompt_count(annotations, reference) == 3
    a, b = reference.groups.index("A"), reference.groups.index("B")
    # Residuals (s - mean) / N per prompt: A (2/9, 2/9, -4/9); B (1/3, 0, -1/3).
    assert gram[0, a, a] == pytest.approx(24 / 81)
    assert gram[0, b, b] == pytest.approx(2 / 9)
    assert gram[0, a, b] == pytest.approx(2 / 27 + 4 / 27)
    # A - B per prompt: (-1/9, 2/9, -1/9): sum of squares 6/81, times C/(C-1) = 3/2: 1/9.
    halfwidth = difference_halfwidths(gram, 3)
    assert halfwidth[0, a, b] == pytest.approx(Z95 / 3)
    assert halfwidth[0, b, a] == pytest.approx(Z95 / 3)
    assert halfwidth[0, a, a] == 0
    # Unpaired, the same numbers would give a wider interval: (24/81 + 2/9) * 3/2.
    assert Z95 * np.sqrt((24 / 81 + 2 / 9) * 1.5) > halfwidth[0, a, b]


def test_a_model_is_never_surer_than_its_own_jeffreys_interval():
    from ffsite.metrics.differences import Z95, difference_halfwidths, jeffreys_variance

    # The pair above: G_AA = 24/81, G_BB = 2/9, G_AB = 6/27, three prompts (factor 3/2).
    gram = np.array([[[24 / 81, 6 / 27], [6 / 27, 2 / 9]]])
    # A's own variance, 3/2 * 24/81 = 4/9, is below a floor of 1/2: the shortfall 1/18
    # is added; B's floor 0 adds nothing.  Paired variance 1/9 + 1/18 = 1/6.
    halfwidth = difference_halfwidths(gram, 3, floor=np.array([[0.5, 0.0]]))
    assert halfwidth[0, 0, 1] == pytest.approx(Z95 / np.sqrt(6))
    assert halfwidth[0, 1, 0] == pytest.approx(Z95 / np.sqrt(6))
    assert halfwidth[0, 0, 0] == 0
    # A floor below the model's own variance changes nothing.
    assert difference_halfwidths(gram, 3, floor=np.array([[0.1, 0.1]]))[0, 0, 1] == \
        pytest.approx(Z95 / 3)
    # An interval of width 2 * 1.96 is a variance of 1.
    assert jeffreys_variance(np.array([-Z95]), np.array([Z95]))[0] == pytest.approx(1.0)
