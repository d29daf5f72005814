"""`ffsite scores` and the registry's names in `ffsite ratings`, as commands."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from helpers import run_here, write_test_votes

from ffsite.format import write_scores


def _content(tmp_path, registry: str):
    content = tmp_path / "content"
    content.mkdir()
    (content / "models.toml").write_text(registry)
    return content


def test_scores_prints_means_with_intervals_and_both_names(tmp_path):
    rows = [{"dataset": "d", "response_id": f"{m}/{p}", "prompt_id": p, "model": m,
             "condition": "base", "judge": "J", "trait_id": "warm", "trait": "Warmth",
             "trait_set": "s", "scale_min": 1, "scale_max": 10, "seed": None, "score": v}
            for m, p, v in [("Model-A", "p1", 2.0), ("Model-A", "p2", 5.0),
                            ("b", "p1", 7.0), ("b", "p2", 7.0)]]
    write_scores(pd.DataFrame(rows), tmp_path / "s.parquet")
    content = _content(tmp_path, "[[models]]\nid = 'a'\nname = 'A'\n"
                                 "aliases = { d = 'Model-A' }\n")
    result = run_here("scores", str(tmp_path / "s.parquet"), "--content", str(content),
                     "--format", "csv")
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(io.StringIO(result.stdout))
    assert list(table.columns) == ["dataset", "condition", "model", "source_model", "trait",
                                   "judge", "mean", "ci_low", "ci_high", "n",
                                   "below_rubric_floor"]
    a = table[table["model"] == "a"].iloc[0]
    assert (a["source_model"], a["mean"], a["n"]) == ("Model-A", 3.5, 2)
    assert (a["ci_low"], a["ci_high"]) == (2.0, 5.0)  # one prompt twice, or the other
    b = table[table["model"] == "b"].iloc[0]
    assert (b["mean"], b["ci_low"], b["ci_high"]) == (7.0, 7.0, 7.0)


def test_scores_without_scores_says_so(tmp_path):
    from helpers import two_comparisons

    write_test_votes(tmp_path / "v.parquet", *two_comparisons())
    result = run_here("scores", str(tmp_path))
    assert result.returncode == 1
    assert "no scores in" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("anchor", ["one", "m1"])  # the site's id, or the dataset's name
def test_ratings_name_models_by_registry_id_with_their_source_name(tmp_path, anchor):
    from helpers import trait

    verbose = trait("is more verbose")
    comparisons = [{"comparison_id": f"c{n}", "model_a": "m1", "model_b": "m2"}
                   for n in range(6)]
    votes = [{"comparison_id": f"c{n}", **verbose, "judge": "j", "vote": "A" if n < 4 else "B"}
             for n in range(6)]
    write_test_votes(tmp_path / "v.parquet", comparisons, votes)
    content = _content(tmp_path, "[[models]]\nid = 'one'\nname = 'One'\n"
                                 "aliases = { d = 'm1' }\n")
    result = run_here("ratings", str(tmp_path / "v.parquet"), "--anchor", anchor,
                     "--bootstrap", "50", "--content", str(content), "--format", "csv")
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(io.StringIO(result.stdout)).set_index("model")
    assert table.loc["one", "source_model"] == "m1" and table.loc["one", "elo"] == 1000
    assert table.loc["m2", "source_model"] == "m2" and table.loc["m2", "elo"] < 1000
