"""Download files never collide: each model's, dataset's and trait's tables live in its
own folder, so models called `foo` and `foo-comparisons`, or a model called `traits`,
each keep their own files; metadata columns differing only in case get distinct names."""

from __future__ import annotations

import csv

import pytest
from helpers import trait, write_test_votes
from site_fixture import REPO, write_content

from ffsite.site.build import build_site
from ffsite.site.output import SiteOutput

MODELS = ["foo", "foo-comparisons", "traits"]
VERBOSE = trait("is more verbose")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("downloads")
    comparisons, votes = [], []
    for m, model in enumerate(MODELS):
        for n in range(6):
            cid = f"{model}-{n}"
            comparisons.append({"comparison_id": cid, "model_a": model, "model_b": "R",
                                "meta.Topic": "x" if n % 2 else "y",
                                "meta.topic": "p" if n < 3 else "q"})
            votes.append({"comparison_id": cid, **VERBOSE, "judge": "j",
                          "vote": "A" if (n + m) % 3 else "B"})
            votes.append({"comparison_id": cid, "role": "preference", "judge": "pj",
                          "vote": "A" if n % 2 else "B"})
    write_test_votes(root / "annotations" / "a.parquet", comparisons, votes)
    write_content(root / "content")
    build_site(root / "annotations", root / "site", content=root / "content",
               templates=REPO / "templates")
    return root / "site"


def rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_every_model_keeps_its_own_files(site):
    for model in MODELS:
        own = rows(site / "data" / "models" / model / "comparisons.csv")
        assert own == [{"dataset": "d", "comparisons": "6"}], model
        traits = rows(site / "data" / "models" / model / "traits.csv")
        assert {r["model"] for r in traits} == {model}
    # The site-wide table of every model's traits is not the model "traits"'s table.
    assert {r["model"] for r in rows(site / "data" / "model-traits.csv")} == set(MODELS)


def test_metadata_columns_differing_only_in_case_get_distinct_files(site):
    folder = site / "data" / "datasets" / "d"
    by = sorted(p.name for p in folder.glob("by-*.csv"))
    assert len(by) == 2 and len({name.lower() for name in by}) == 2
    values = {name: {r["value"] for r in rows(folder / name)} for name in by}
    assert sorted(map(sorted, values.values())) == [["p", "q"], ["x", "y"]]


def test_two_tables_with_one_name_stop_the_build():
    from ffsite.errors import FfsiteError

    output = SiteOutput()
    output.data("models/a/traits", None, "first", "p.html")
    with pytest.raises(FfsiteError, match="both be published as data/models/A/Traits.csv"):
        output.data("models/A/Traits", None, "second", "p.html")
