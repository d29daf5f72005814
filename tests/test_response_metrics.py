"""Communication traits per response: written by `measure_dataset`, read back, averaged
per model with 95% intervals (checked against hand computations)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from tiny_base import INSTRUCTIONS, OUTPUTS, REFERENCE, write_alpaca_eval

from ffsite.datasets.alpaca_eval.importer import import_alpaca_eval
from ffsite.errors import FfsiteError
from ffsite.format.response_metrics import read_response_metrics
from ffsite.format.write import write_response_metrics, write_votes
from ffsite.judges.apply import measure_dataset
from ffsite.judges.communication import COMMUNICATION_TRAITS
from ffsite.metrics.communication import ESTIMATE_COLUMNS, communication_estimates
from ffsite.metrics.results import communication_averages


@pytest.fixture
def measured(tmp_path):
    write_votes(import_alpaca_eval(write_alpaca_eval(tmp_path)).table,
                tmp_path / "ann" / "preferences.parquet")
    measure_dataset([tmp_path / "ann"], dataset="alpaca_eval", base_dir=tmp_path,
                    out=tmp_path / "ann" / "communication.parquet")
    return tmp_path / "ann"


def test_one_row_per_response_numbers_only(measured):
    frame = read_response_metrics([measured])  # the votes file beside it is skipped
    assert list(frame.columns) == ["dataset", "response_id", "prompt_id", "model",
                                   *COMMUNICATION_TRAITS]
    assert len(frame) == sum(len(answers) for answers in OUTPUTS.values())  # 11
    assert frame["response_id"].is_unique and (frame["dataset"] == "alpaca_eval").all()
    texts = {t for answers in OUTPUTS.values() for t in answers.values()} | set(INSTRUCTIONS)
    assert not set(frame.select_dtypes(exclude="number").stack()) & texts


def test_model_averages_by_hand(measured):
    estimates = communication_averages([measured])
    assert list(estimates.columns) == list(ESTIMATE_COLUMNS)
    averages = estimates.pivot(index="model", columns="measure", values="mean")
    assert list(averages.index) == sorted(OUTPUTS)
    assert list(estimates["measure"].iloc[:len(COMMUNICATION_TRAITS)]) == list(
        COMMUNICATION_TRAITS)
    responses = estimates.drop_duplicates("model").set_index("model")["responses"]
    assert responses.to_dict() == {m: len(answers) for m, answers in OUTPUTS.items()}
    # terse: "Red", "Condensation.", "Apple, pear, plum", "Hi" -> 1, 1, 3, 1 words.
    assert averages.loc["terse", "words"] == pytest.approx(6 / 4)
    # wordy ends two of its three answers with "?" (the third with an emoji): a share.
    assert averages.loc["wordy", "ends_with_question"] == pytest.approx(2 / 3)
    assert averages.loc[REFERENCE, "ends_with_question"] == 0
    # Emojis: one in wordy's three answers.
    assert averages.loc["wordy", "emojis"] == pytest.approx(1 / 3)


def test_text_columns_and_repeats_are_refused(measured, tmp_path):
    bad = pd.DataFrame({"dataset": ["d"], "response_id": ["r"], "prompt_id": ["p"],
                        "model": ["m"], "words": [3.0], "text": ["leaked text"]})
    write_response_metrics(bad, tmp_path / "bad" / "m.parquet")
    with pytest.raises(FfsiteError, match=r"m.parquet: column 'text' is \w*string, not a number"):
        read_response_metrics([tmp_path / "bad"])
    copy = tmp_path / "copy"
    frame = read_response_metrics([measured])
    write_response_metrics(frame.iloc[:2], copy / "one.parquet")
    write_response_metrics(frame.iloc[1:3], copy / "two.parquet")
    with pytest.raises(FfsiteError, match="also appears in another response-metrics file"):
        read_response_metrics([copy])


def rows(model: str, **measures: list[float]) -> pd.DataFrame:
    """Response-metrics rows of one model, as read_response_metrics gives them."""
    count = len(next(iter(measures.values())))
    return pd.DataFrame({"dataset": "d", "response_id": [f"{model}/{i}" for i in range(count)],
                         "prompt_id": [f"p{i}" for i in range(count)], "model": model,
                         **measures})


def estimate(frame: pd.DataFrame, model: str, measure: str) -> pd.Series:
    table = communication_estimates(frame).set_index(["model", "measure"])
    return table.loc[(model, measure)]


def test_a_counts_interval_is_the_mean_plus_minus_1_96_standard_errors(tmp_path):
    # Three responses of 20, 30 and 40 words, by hand: mean 30, sample sd
    # sqrt((100 + 0 + 100) / 2) = 10, half-width 1.959964 * 10 / sqrt(3) = 11.315857.
    path = tmp_path / "m.parquet"
    write_response_metrics(rows("a", words=[20.0, 30.0, 40.0]), path)
    row = communication_averages([path]).set_index(["model", "measure"]).loc[("a", "words")]
    assert (row["n"], row["responses"], bool(row["share"])) == (3, 3, False)
    assert row["mean"] == pytest.approx(30.0)
    assert row["low"] == pytest.approx(18.684143, abs=1e-6)
    assert row["high"] == pytest.approx(41.315857, abs=1e-6)


def test_a_shares_interval_is_wilsons():
    # 2 of 5 responses end with a question, by hand with z = 1.959964 (z^2 = 3.841459):
    # centre (0.4 + z^2/10) / (1 + z^2/5) = 0.784146 / 1.768292 = 0.443448, half-width
    # z / 1.768292 * sqrt(0.4 * 0.6 / 5 + z^2 / 100) = 1.108394 * 0.293964 = 0.325828.
    # (The normal interval, 0.4 +- 0.480, would start at 0.)
    row = estimate(rows("b", ends_with_question=[1.0, 0.0, 1.0, 0.0, 0.0]), "b",
                   "ends_with_question")
    assert bool(row["share"]) and row["n"] == 5 and row["mean"] == pytest.approx(0.4)
    assert row["low"] == pytest.approx(0.117621, abs=1e-6)
    assert row["high"] == pytest.approx(0.769276, abs=1e-6)


def test_a_boolean_measure_is_a_share_too():
    row = estimate(rows("b", replied=[True, False, True, False, False]), "b", "replied")
    assert bool(row["share"]) and row["low"] == pytest.approx(0.117621, abs=1e-6)


def test_a_rare_marks_interval_stops_at_zero_and_another_measures_does_not():
    # Emojis 0, 0, 0, 0, 3: mean 0.6, sd sqrt((4 * 0.36 + 5.76) / 4) = sqrt(1.8) = 1.341641,
    # half-width 1.959964 * 1.341641 / sqrt(5) = 1.175978: 0.6 - 1.175978 < 0, cut at 0
    # for a trait (a count is never negative); a measure of its own keeps -0.575978.
    # Above, the trait's bound is at least the share of responses with an emoji (1 of 5)
    # at its exact upper bound, the p with P(at most 1 of 5) = 0.025, solved here, times
    # the 3 emojis of the one response that has them: 0.716418 * 3 = 2.149254, higher
    # than the normal 1.775978, which the other measure keeps.
    from scipy.optimize import brentq

    frame = rows("r", emojis=[0.0, 0.0, 0.0, 0.0, 3.0], balance=[0.0, 0.0, 0.0, 0.0, 3.0])
    emojis, balance = estimate(frame, "r", "emojis"), estimate(frame, "r", "balance")
    upper = brentq(lambda p: (1 - p) ** 5 + 5 * p * (1 - p) ** 4 - 0.025, 1e-9, 1 - 1e-9)
    assert emojis["low"] == 0 and emojis["high"] == pytest.approx(3 * upper, abs=1e-6)
    assert emojis["high"] == pytest.approx(2.149254, abs=1e-6)
    assert balance["low"] == pytest.approx(-0.575978, abs=1e-6)
    assert balance["high"] == pytest.approx(1.775978, abs=1e-6)


def test_a_mark_never_used_reaches_up_to_the_share_it_could_have():
    """A model that never used an emoji in 40 responses: the share with one is at most
    1 - 0.025 ** (1 / 40) (exact: P(none of 40) = 0.025), times the smallest count any
    response shows (1, another model's); a common measure keeps the normal interval."""
    frame = pd.concat([rows("none", emojis=[0.0] * 40, words=[10.0, 20.0] * 20),
                       rows("other", emojis=[1.0, 2.0], words=[5.0, 7.0])],
                      ignore_index=True)
    none = estimate(frame, "none", "emojis")
    assert none["mean"] == 0 and none["low"] == 0
    assert none["high"] == pytest.approx(1 - 0.025 ** (1 / 40))
    words = estimate(frame, "none", "words")  # 10 and 20, twenty times each
    half = 1.959964 * np.std([10.0, 20.0] * 20, ddof=1) / np.sqrt(40)
    assert (words["low"], words["high"]) == pytest.approx((15 - half, 15 + half), abs=1e-6)


def test_one_response_gives_no_interval_and_an_undefined_value_does_not_count():
    frame = pd.concat([
        rows("one", words=[7.0], avg_sentence_length=[7.0]),
        # An answer without a sentence has no sentence length (NaN): 2 of 3 responses.
        rows("some", words=[4.0, 0.0, 8.0], avg_sentence_length=[4.0, math.nan, 8.0]),
        rows("unknown", words=[5.0]).assign(model=None)],  # no model: left out
        ignore_index=True)
    table = communication_estimates(frame).set_index(["model", "measure"])
    assert set(table.index.get_level_values("model")) == {"one", "some"}
    one = table.loc[("one", "words")]
    assert (one["n"], one["mean"]) == (1, 7.0)
    assert np.isnan(one["low"]) and np.isnan(one["high"])
    length = table.loc[("some", "avg_sentence_length")]
    assert (length["responses"], length["n"], length["mean"]) == (3, 2, 6.0)
    # 4 and 8: sd sqrt(8) = 2.828427, half-width 1.959964 * 2.828427 / sqrt(2) = 3.919928.
    assert length["low"] == pytest.approx(2.080072, abs=1e-6)
    assert length["high"] == pytest.approx(9.919928, abs=1e-6)


def test_no_rows_give_an_empty_table():
    empty = communication_estimates(pd.DataFrame(
        {name: pd.Series(dtype=object) for name in ["dataset", "response_id", "prompt_id",
                                                    "model"]}))
    assert empty.empty and list(empty.columns) == list(ESTIMATE_COLUMNS)
