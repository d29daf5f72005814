"""Page paths, links between pages and page names (ffsite.site.urls)."""

from __future__ import annotations

import pytest

from ffsite.errors import FfsiteError
from ffsite.site.urls import MODELS, TRAITS, Slugs, link, page_path


def test_paths_and_links_from_the_top_and_from_a_folder():
    assert page_path("ratings") == "ratings.html"
    assert page_path(MODELS, "m1") == "models/m1.html"
    assert link("index.html", page_path(MODELS, "m1")) == "models/m1.html"
    assert link("models/m1.html", page_path(TRAITS, "t")) == "../traits/t.html"
    assert link("models/m1.html", page_path("ratings")) == "../ratings.html"
    assert link("traits/t.html", "data/x.csv") == "../data/x.csv"


def test_slugs_give_pages_and_refuse_names_sharing_one():
    slugs = Slugs.create(["a1"], ["gpt-4", "x/y"], ["d"])
    assert slugs.page(MODELS, "gpt-4") == "models/gpt-4.html"
    assert slugs.page(MODELS, "x/y").startswith("models/x-y-")  # not a plain file name
    assert slugs.page(MODELS, "absent") is None
    assert slugs.pages(TRAITS) == {"a1": "traits/a1.html"}
    with pytest.raises(FfsiteError, match="model 'M1' gives the same page name as another"):
        Slugs.create([], ["m1", "M1"], [])
