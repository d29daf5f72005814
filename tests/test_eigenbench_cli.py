"""`ffsite eigenbench fit`: outputs in every format, and one-line errors for bad input."""

from __future__ import annotations

import io
import json
import shutil

import eigenbench_fixture as fixture
import numpy as np
import pandas as pd
import pytest
from helpers import run_here, trait, write_test_votes

from ffsite.format.read import read_annotations
from ffsite.metrics import eigenbench as eb


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("eigenbench")
    fixture.write_simulated_votes(folder, fixture.truth(5, 2, seed=21), 600, seed=22)
    return folder


def test_csv_has_the_rating_columns_and_matches_the_library(simulated):
    result = run_here("eigenbench", "fit", str(simulated), "--dims", "2", "--bootstrap",
                     "20", "--seed", "3", "--format", "csv")
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(io.StringIO(result.stdout))
    assert list(table.columns) == ["model", "elo", "ci_low", "ci_high", "trust"]
    assert sorted(table["model"]) == list(fixture.names(5))
    assert table["trust"].sum() == pytest.approx(1.0)
    direct = eb.eigenbench(eb.judgments_from_annotations(read_annotations([simulated])),
                           dims=2, n_bootstrap=20, seed=3)
    np.testing.assert_allclose(table["elo"], direct.ratings["elo"], rtol=1e-12)
    np.testing.assert_allclose(table["ci_high"], direct.ratings["ci_high"], rtol=1e-12)


def test_json_carries_vectors_and_diagnostics(simulated):
    result = run_here("eigenbench", "fit", str(simulated), "--constitution",
                     fixture.CONSTITUTION, "--bootstrap", "5", "--format", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    n, d = 5, document["dims"]
    assert d in (1, 2, 3, 4)
    assert np.array(document["lenses"]).shape == (n, d)
    assert np.array(document["dispositions"]).shape == (n, d)
    assert len(document["lambdas"]) == n and min(document["lambdas"]) > 0
    assert np.array(document["trust_matrix"]).sum(axis=1) == pytest.approx(np.ones(n))
    assert [row["dims"] for row in document["held_out"]] == [1, 2, 3, 4]
    assert {"agreement", "lens_distance", "self_preference"} <= set(document["judges"][0])
    assert document["judgments"] == 1200 and document["comparisons"] == 600
    assert document["converged"] is True
    # the criterion's wording selects the same votes as the constitution's name
    by_wording = run_here("eigenbench", "fit", str(simulated), "--constitution",
                         fixture.CRITERION, "--bootstrap", "5", "--format", "json")
    assert json.loads(by_wording.stdout)["ratings"] == document["ratings"]


def test_table_format_prints_every_model(simulated):
    result = run_here("eigenbench", "fit", str(simulated), "--dims", "1", "--bootstrap", "0")
    assert result.returncode == 0, result.stderr
    assert all(name in result.stdout for name in fixture.names(5))


def one_error_line(result, *needles: str) -> None:
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_unknown_criterion(simulated):
    one_error_line(run_here("eigenbench", "fit", str(simulated), "--constitution", "nope"),
                   "unknown criterion 'nope'", fixture.CONSTITUTION)


def test_dims_not_below_the_number_of_models(simulated):
    one_error_line(run_here("eigenbench", "fit", str(simulated), "--dims", "5"),
                   "--dims", "number of models")


def test_fewer_than_three_models(tmp_path):
    kind = trait("is kinder")
    write_test_votes(tmp_path / "v.parquet",
                     [{"comparison_id": "c1", "model_a": "m1", "model_b": "m2"}],
                     [{"comparison_id": "c1", **kind, "judge": "m1", "vote": "A"},
                      {"comparison_id": "c1", **kind, "judge": "m2", "vote": "B"}])
    one_error_line(run_here("eigenbench", "fit", str(tmp_path)), "fewer than 3 models")


def test_no_judgments(tmp_path):
    write_test_votes(tmp_path / "v.parquet",
                     [{"comparison_id": "c1", "model_a": "m1", "model_b": "m2"}],
                     [{"comparison_id": "c1", "role": "preference", "judge": "h",
                       "vote": "A"}])
    one_error_line(run_here("eigenbench", "fit", str(tmp_path)), "no judgments")


def test_several_constitutions_need_a_choice(tmp_path, simulated):
    shutil.copy(simulated / "eigenbench-simulated.parquet", tmp_path)
    other = trait("is more honest")
    write_test_votes(tmp_path / "other.parquet",
                     [{"comparison_id": "c1", "model_a": "m1", "model_b": "m2"}],
                     [{"comparison_id": "c1", **other, "trait_set": "honesty",
                       "judge": "m3", "vote": "A"}])
    one_error_line(run_here("eigenbench", "fit", str(tmp_path)), "several constitutions",
                   "--constitution")
