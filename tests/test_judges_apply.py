"""The rules judge run over a dataset (`ffsite.judges.apply`), on a tiny hand-made one."""

from __future__ import annotations

import hashlib

import pytest
from tiny_base import REFERENCE, write_alpaca_eval

from ffsite.datasets.alpaca_eval.importer import import_alpaca_eval
from ffsite.errors import FfsiteError
from ffsite.format.read import read_annotations
from ffsite.format.write import write_votes
from ffsite.judges.apply import annotate_dataset
from ffsite.traits import PREFIX, trait_id

VERBOSE = trait_id(PREFIX + "is more verbose")
EMOJIS = trait_id(PREFIX + "uses more emojis")
QUESTION = trait_id(PREFIX + "ends with a follow-up question")
NUMBERED = trait_id(PREFIX + "provides a numbered list format")


@pytest.fixture
def judged(tmp_path):
    """Preferences imported from the tiny folder, then rules votes written beside them."""
    imported = import_alpaca_eval(write_alpaca_eval(tmp_path), seed=2)
    write_votes(imported.table, tmp_path / "ann" / "preferences.parquet",
                default_preference=imported.default_preference)
    line = annotate_dataset([tmp_path / "ann"], dataset="alpaca_eval", base_dir=tmp_path,
                            out=tmp_path / "ann" / "rules.parquet")
    return tmp_path, line


def votes_by_model_side(path) -> dict[tuple[str, str, str], str]:
    """{(model, instruction hash, trait id): 'model' | 'reference' | 'tie' | 'neither'}."""
    annotations = read_annotations([path])
    comparisons = annotations.comparisons.astype(object)
    annotators = annotations.annotators
    found = {}
    names = {1: "A", 2: "B", 3: "tie", 4: "neither"}
    for row in annotations.votes.itertuples():
        comparison = comparisons.iloc[row.comparison]
        model_on_a = comparison["model_a"] != REFERENCE
        model = comparison["model_a"] if model_on_a else comparison["model_b"]
        vote = names[row.vote]
        if vote in ("A", "B"):
            vote = "model" if (vote == "A") == model_on_a else "reference"
        found[(model, comparison["prompt_id"], annotators["trait_id"].iloc[row.annotator])] = vote
    return found


def pid(instruction: str) -> str:
    return "ae-" + hashlib.sha256(instruction.encode()).hexdigest()[:12]


def test_rules_votes_by_hand(judged):
    tmp_path, line = judged
    assert line.endswith("on 7 comparisons of alpaca_eval")
    votes = votes_by_model_side(tmp_path / "ann" / "rules.parquet")
    colour, rain, fruits = pid("Name a colour."), pid("Explain rain."), pid("List three fruits.")
    # 25 words against "Blue.": more verbose; "Red" against "Blue.": one word each, a tie.
    assert votes[("wordy", colour, VERBOSE)] == "model"
    assert votes[("terse", colour, VERBOSE)] == "tie"
    assert votes[("terse", rain, VERBOSE)] == "reference"  # 1 word against 7
    # Only wordy's rain answer has an emoji; elsewhere no side has one.
    assert votes[("wordy", rain, EMOJIS)] == "model"
    assert votes[("wordy", colour, EMOJIS)] == "neither"
    # wordy's colour answer ends with "?", the reference's "Blue." does not.
    assert votes[("wordy", colour, QUESTION)] == "model"
    assert votes[("terse", rain, QUESTION)] == "neither"
    # The reference's fruits are a numbered list; terse's are not; wordy's are too.
    assert votes[("terse", fruits, NUMBERED)] == "reference"
    assert votes[("wordy", fruits, NUMBERED)] == "tie"


def test_rules_file_lines_up_with_the_preferences(judged):
    tmp_path, _ = judged
    both = read_annotations([tmp_path / "ann"])  # the reader checks comparisons agree
    assert len(both.comparisons) == 7
    traits = both.annotators[both.annotators["role"] == "trait"]
    assert set(traits["judge"]) == {"rules-1"} and set(traits["trait_set"]) == {"ff-v1"}
    assert {VERBOSE, EMOJIS, QUESTION, NUMBERED} <= set(traits["trait_id"])
    assert set(both.comparisons["meta.subset"]) == {"koala", "oasst", "selfinstruct", "vicuna"}


def test_missing_base_data_says_what_to_do(judged):
    tmp_path, _ = judged
    (tmp_path / "no-texts").mkdir(exist_ok=True)  # (a folder that does not exist is a typo)
    with pytest.raises(FfsiteError, match="base dataset alpaca_eval not available in .*"
                       "run ffsite fetch alpaca_eval"):
        annotate_dataset([tmp_path / "ann"], dataset="alpaca_eval",
                         base_dir=tmp_path / "no-texts", out=tmp_path / "x.parquet")
    with pytest.raises(FfsiteError, match="base data .*nowhere: no such folder"):
        annotate_dataset([tmp_path / "ann"], dataset="alpaca_eval",
                         base_dir=tmp_path / "nowhere", out=tmp_path / "x.parquet")
    with pytest.raises(FfsiteError, match="dataset 'hh_rlhf' has no comparisons"):
        annotate_dataset([tmp_path / "ann"], dataset="hh_rlhf", base_dir=tmp_path,
                         out=tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()


def test_rerun_over_the_default_layout_leaves_model_pairs_alone(tmp_path):
    """`ffsite annotate --judge rules --dataset alpaca_eval` over annotations/ must not vote
    again on the comparisons model-pairs.parquet already judged, and so it remakes
    rules.parquet byte for byte."""
    from ffsite.datasets.defaults import default_annotations

    write_alpaca_eval(tmp_path / "base")
    default_annotations(tmp_path / "base", tmp_path / "ann", pair_prompts=3, say=lambda _: None)
    rules_file = tmp_path / "ann" / "alpaca_eval" / "rules.parquet"
    before = rules_file.read_bytes()
    n_pairs = len(read_annotations([tmp_path / "ann/alpaca_eval/model-pairs.parquet"])
                  .comparisons)
    line = annotate_dataset([tmp_path / "ann"], dataset="alpaca_eval",
                            base_dir=tmp_path / "base", out=rules_file)
    assert f"skipped: {n_pairs} already judged by rules-1 in other files" in line
    assert rules_file.read_bytes() == before
    read_annotations([tmp_path / "ann"])  # still one vote per judge, comparison and trait
