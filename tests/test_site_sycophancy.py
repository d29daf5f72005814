"""The sycophancy page on the default site: what each piece can and cannot say."""

from __future__ import annotations

import html
import re

import pandas as pd
from scipy.stats import spearmanr


def test_the_eqbench_criterion_says_it_mostly_repeats_overall_eq(default_site):
    """EQ-Bench 3's judge gives one verdict seen several times: the 'validating or
    challenging' Elo follows its overall EQ almost exactly (Spearman by scipy over the
    downloads' models), and the page says so beside the ranking."""
    ratings = pd.read_csv(default_site / "data" / "eqbench3-ratings.csv")
    wide = ratings.pivot(index="model", columns="trait_id", values="elo")
    rho = spearmanr(wide["eq-appropriate_validating_challenging"],
                    wide["eq-overall_eq"]).statistic
    assert rho >= 0.9
    page = html.unescape(re.sub(r"\s+", " ", re.sub(
        r"<[^>]+>", " ", (default_site / "sycophancy.html").read_text("utf-8"))))
    said = re.search(f"Its Elo follows the judge's Overall EQ across the {len(wide)} models "
                     rf"\(Spearman {rho:.2f}, 95% interval (\d\.\d\d)–(\d\.\d\d) over "
                     r"resampled models\): the judge's verdict on this criterion is mostly "
                     "its overall verdict, so this ranking adds little evidence of its own",
                     page)
    assert said, "the page does not say the criterion follows overall EQ, with an interval"
    low, high = map(float, said.groups())
    assert 0.9 <= low <= rho <= high <= 1  # "mostly" only when the whole interval says so
