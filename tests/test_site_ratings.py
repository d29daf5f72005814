"""The ratings page on the default site: what each index is made of, honestly counted."""

from __future__ import annotations

import re

import pandas as pd


def test_an_index_says_when_a_member_mirrors_another(default_site):
    """The rules judge's "is more concise" is the mirror image of "is more verbose" (its
    Elo is 2000 minus the other's for every model, checked here from the downloads): the
    Verbosity index names it the same measurement counted twice."""
    ratings = pd.read_csv(default_site / "data" / "ratings.csv")
    pivot = ratings.pivot(index="model", columns="trait", values="elo")
    assert ((pivot["is more concise"] + pivot["is more verbose"] - 2000).abs() < 1e-6).all()
    html = re.sub(r"\s+", " ", (default_site / "ratings.html").read_text())
    verbosity = re.search(r"<dt>Verbosity</dt> <dd>(.*?)</dd>", html).group(1)
    assert ("is more concise (reversed) (the mirror image of is more verbose: the same "
            "measurement, counted twice)" in verbosity)
    assert verbosity.count("mirror image") == 1
