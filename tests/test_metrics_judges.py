"""Judges are never pooled (issue 23): a contributor's judge on an existing trait, and a
trait only the contributor's judge asked, reproduced on tiny files and checked by hand."""

from __future__ import annotations

import pytest
from helpers import run_main, trait, write_test_votes

from ffsite.format.read import read_annotations
from ffsite.metrics.judges import judge_trait_id, separate_judges
from ffsite.metrics.results import model_results, ratings_table, trait_votes

VERBOSE, POLITE = trait("is more verbose"), trait("is more polite")


@pytest.fixture
def files(tmp_path):
    """m1 vs the reference on c0-c5, voted by rules-1 on verbosity; a contribution: m2 vs
    the reference on c6-c9, voted by llm-judge on verbosity and politeness.  The model
    under study is always side A; the reference answers B."""
    site = [{"comparison_id": f"c{i}", "model_a": "m1", "model_b": "ref"} for i in range(6)]
    rules = [{"comparison_id": f"c{i}", **VERBOSE, "judge": "rules-1", "vote": vote}
             for i, vote in enumerate("AAAAB") ] + [
        {"comparison_id": "c5", **VERBOSE, "judge": "rules-1", "vote": "tie"}]
    contribution = [{"comparison_id": f"c{i}", "model_a": "m2", "model_b": "ref"}
                    for i in range(6, 10)]
    judged = [{"comparison_id": f"c{i}", **columns, "judge": "llm-judge", "vote": vote}
              for i in range(6, 10) for columns, vote in ((VERBOSE, "A"), (POLITE, "B"))]
    return (write_test_votes(tmp_path / "site.parquet", site, rules),
            write_test_votes(tmp_path / "contrib.parquet", contribution, judged))


def results(files):
    annotations = separate_judges(read_annotations(list(files)))
    found = model_results(annotations, trait_votes(annotations), "ref", 1).traits
    return annotations, found.set_index(["model", "trait_id"])


def test_another_judge_on_an_existing_trait_stays_apart(files):
    annotations, rows = results(files)
    other = judge_trait_id(VERBOSE["trait_id"], "llm-judge")
    traits = annotations.traits().set_index("trait_id")
    # rules-1 has more votes on verbosity: it keeps the trait; llm-judge's is its own.
    assert traits.loc[VERBOSE["trait_id"], "judge"] == "rules-1"
    assert traits.loc[other, "judge"] == "llm-judge"
    assert traits.loc[other, "trait"].endswith("[judged by llm-judge]")
    # m1: agree c0-c3, disagree c4, tie c5 -> strength (4 - 1) / 6, rules-1's alone.
    m1 = rows.loc[("m1", VERBOSE["trait_id"])]
    assert (m1["num_votes"], m1["agreed"], m1["disagreed"]) == (6, 4, 1)
    assert m1["strength"] == pytest.approx(0.5)
    # m2's verbosity is llm-judge's, under its own id; m2 has no rules-1 row.
    assert rows.loc[("m2", other), "strength"] == pytest.approx(1.0)
    assert ("m2", VERBOSE["trait_id"]) not in rows.index


def test_a_trait_only_the_contribution_asked_gives_other_models_no_row(files):
    _, rows = results(files)
    assert ("m1", POLITE["trait_id"]) not in rows.index  # was "6 votes, 6 not applicable"
    assert rows.loc[("m2", POLITE["trait_id"]), "strength"] == pytest.approx(-1.0)
    assert set(rows.index.get_level_values("model")) == {"m1", "m2"}


def test_ratings_are_per_judge(files):
    annotations = separate_judges(read_annotations(list(files)))
    table = ratings_table(annotations, anchor="ref", n_bootstrap=20, seed=0)
    rated = table.groupby("trait_id")["model"].agg(set)
    assert rated[VERBOSE["trait_id"]] == {"m1", "ref"}
    assert rated[judge_trait_id(VERBOSE["trait_id"], "llm-judge")] == {"m2", "ref"}


def test_metrics_command_keeps_judges_apart_unless_they_are_named(files, monkeypatch, capsys):
    def rows(*args):
        status, out, _ = run_main(monkeypatch, capsys, "metrics", *map(str, files),
                                  "--format", "csv", *args)
        assert status == 0
        return out.splitlines()[1:]

    # m1 was judged by rules-1 only: one verbosity row, rules-1's, and no politeness row.
    (line,) = rows("--against", "model:m1")
    assert line.startswith(f"{VERBOSE['trait_id']},") and ",rules-1,6," in line
    # m2 was judged by llm-judge only: its verbosity under the judge's own id.
    assert sorted(line.split(",")[0] for line in rows("--against", "model:m2")) == sorted(
        [judge_trait_id(VERBOSE["trait_id"], "llm-judge"), POLITE["trait_id"]])
    # Naming both judges pools them on purpose: the judge column says so.
    (line,) = rows("--against", "model:m1", "--judge", "rules-1", "--judge", "llm-judge")
    assert ",llm-judge+rules-1,6," in line


def test_one_judge_per_trait_is_left_as_it_is(files):
    annotations = read_annotations([files[0]])
    assert separate_judges(annotations) is annotations


def test_a_declared_panel_is_the_mean_of_its_members_means(tmp_path):
    import pandas as pd

    from ffsite.format import read_scores, write_scores
    from ffsite.metrics.judges import pool_panels

    def rows(dataset, judge, seed, score, response="r1"):
        return {"dataset": dataset, "response_id": response, "prompt_id": "p", "model": "m",
                "condition": None, "judge": judge, "trait_id": "t", "trait": "T: a trait",
                "trait_set": "s", "scale_min": 1, "scale_max": 10, "seed": seed,
                "score": score}

    frame = pd.DataFrame([rows("d", "a", 0, 2.0), rows("d", "a", 1, 4.0),
                          rows("d", "b", None, 7.0), rows("e", "a", None, 9.0)])
    write_scores(frame, tmp_path / "s.parquet")
    pooled, members = pool_panels(read_scores([tmp_path / "s.parquet"]),
                                  {"d": ("the panel", ("a", "b"))})
    long = pooled.long()
    # a's mean over its seeds (3) and b's (7) averaged: 5, not the plain mean 13/3.
    assert long[long["dataset"] == "d"][["judge", "score"]].values.tolist() == [
        ["the panel", 5.0]]
    # Another dataset's scores by a member stay that judge's own.
    assert long[long["dataset"] == "e"][["judge", "score"]].values.tolist() == [["a", 9.0]]
    assert sorted(members.long()["score"]) == [2.0, 4.0, 7.0]
    assert "the mean of 2 judges' scores (a, b)" in pooled.judges["the panel"]
