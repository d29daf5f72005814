"""Communication traits per response: written by `measure_dataset`, read back, averaged."""

from __future__ import annotations

import pandas as pd
import pytest
from tiny_base import INSTRUCTIONS, OUTPUTS, REFERENCE, write_alpaca_eval

from ffsite.datasets.alpaca_eval.importer import import_alpaca_eval
from ffsite.errors import FfsiteError
from ffsite.format.response_metrics import read_response_metrics
from ffsite.format.write import write_response_metrics, write_votes
from ffsite.judges.apply import measure_dataset
from ffsite.judges.communication import COMMUNICATION_TRAITS
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
    averages = communication_averages([measured]).set_index("model")
    assert list(averages.index) == sorted(OUTPUTS)
    assert list(averages.columns) == list(COMMUNICATION_TRAITS)
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
