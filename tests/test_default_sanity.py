"""Sanity checks on the real AlpacaEval data: the rules judge sees the length-gaming
variants for what they are, and the AlpacaEval judge's known taste for longer answers.

For speed, 200 seeded-random instructions and the six model families that come with
`_concise` / `_verbose` variants (AlpacaEval's length-gaming study).  Note what the data
says: gpt4_1106_preview writes ~300 words per answer, more than most `_verbose` variants
of weaker models (alpaca-7b_verbose: ~90), so "more verbose" is checked against each
variant's own base model, and against the reference only where it holds.
"""

from __future__ import annotations

import numpy as np
import pytest

from ffsite.datasets.alpaca_eval import reader as alpaca_eval
from ffsite.datasets.alpaca_eval.importer import preference_votes
from ffsite.format.read import read_annotations
from ffsite.format.write import write_votes
from ffsite.judges.apply import measure, rule_votes
from ffsite.metrics.results import metrics_table
from ffsite.traits import PREFIX

FAMILIES = ("Mixtral-8x7B-Instruct-v0.1", "alpaca-7b", "claude-2.1", "gpt-3.5-turbo-1106",
            "gpt4_0613", "gpt4_1106_preview")
REFERENCE = "gpt4_1106_preview"
VERBOSE = PREFIX + "is more verbose"
pytestmark = pytest.mark.slow  # judges 200 real instructions of 18 models with the rules judge


@pytest.fixture(scope="module")
def real(shared_data, tmp_path_factory):
    """Comparisons with the reference (plus the AlpacaEval judge) and with each family's
    base model, all judged by the rules judge, written to files and read back."""
    root = shared_data / "alpaca_eval"
    outputs = alpaca_eval.load_outputs(root)
    judged = alpaca_eval.load_judge_annotations(root)
    prompts = sorted(outputs["prompt_id"].unique())
    sample = set(np.random.default_rng(0).choice(prompts, 200, replace=False))
    models = {family + suffix for family in FAMILIES for suffix in ("", "_concise", "_verbose")}
    outputs = outputs[outputs["model"].isin(models) & outputs["prompt_id"].isin(sample)]
    features = measure(outputs["response_id"],
                       dict(zip(outputs["response_id"], outputs["output"], strict=True)))
    folder = tmp_path_factory.mktemp("sanity")

    def judge(models_here, reference, judgements, name):
        imported = preference_votes(outputs[outputs["model"].isin(models_here)], judgements,
                                    reference=reference, seed=0)
        write_votes(imported.table, folder / name / "preferences.parquet",
                    default_preference=imported.default_preference)
        comparisons = imported.table.drop_duplicates("comparison_id")
        write_votes(rule_votes(comparisons, features), folder / name / "rules.parquet")
        return read_annotations([folder / name])

    against_reference = judge(models, REFERENCE, judged, "reference")
    against_base = {family: judge({family, family + "_concise", family + "_verbose"}, family,
                                  judged.iloc[:0], family) for family in FAMILIES}
    return against_reference, against_base


def verbosity(annotations, model: str, reference: str) -> float:
    table = metrics_table(annotations, against=f"model:{model}", reference_models=[reference])
    return float(table.set_index("description").loc[VERBOSE, "strength"])


@pytest.mark.parametrize("family", FAMILIES)
def test_variants_against_their_base_model(real, family):
    annotations = real[1][family]
    assert verbosity(annotations, family + "_verbose", family) > 0.4
    assert verbosity(annotations, family + "_concise", family) < -0.1


def test_variants_against_the_reference(real):
    annotations = real[0]
    for family in FAMILIES:
        assert verbosity(annotations, family + "_concise", REFERENCE) < -0.5
    assert verbosity(annotations, REFERENCE + "_verbose", REFERENCE) > 0.4


def test_alpaca_eval_judge_prefers_longer_answers(real):
    table = metrics_table(real[0], against="preference").set_index("description")
    assert table.loc[VERBOSE, "num_votes"] > 1000  # judged comparisons in the sample
    assert table.loc[VERBOSE, "strength"] > 0.3
    assert table.loc[PREFIX + "is more concise", "strength"] < -0.3
