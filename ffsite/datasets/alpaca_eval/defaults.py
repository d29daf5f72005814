"""AlpacaEval's default annotations: preferences against the reference, rules-judge votes
on those comparisons and on sampled pairs of other models, and communication traits."""

from __future__ import annotations

from pathlib import Path

from ffsite.datasets.alpaca_eval import reader
from ffsite.datasets.alpaca_eval.importer import (
    EMPTY,
    model_pairs,
    preference_votes,
    without_empty_answers,
)
from ffsite.datasets.defaults import (
    Settings,
    comparisons,
    write_communication,
    write_preferences,
    write_rules,
)
from ffsite.format import schema
from ffsite.judges.apply import measure


def write_defaults(root: Path, target: Path, settings: Settings) -> None:
    reference, seed, say = reader.REFERENCE_MODEL, settings.seed, settings.say
    outputs = reader.load_outputs(root)
    imported = preference_votes(outputs, reader.load_judge_annotations(root),
                                reference=reference, seed=seed)
    write_preferences(imported, target, say)
    features = measure(outputs["response_id"],
                       dict(zip(outputs["response_id"], outputs["output"], strict=True)))
    left_out = {EMPTY: imported.skipped.get(EMPTY, 0)}
    write_rules(comparisons(imported.table), features, target / "rules.parquet", say,
                left_out=left_out)
    pairs, empty = without_empty_answers(model_pairs(
        outputs, reference=reference, seed=seed, n_prompts=settings.pair_prompts), outputs)
    write_rules(pairs, features, target / "model-pairs.parquet", say,
                left_out={EMPTY: empty})
    responses = outputs.assign(dataset=reader.NAME)[list(schema.RESPONSE_ID_COLUMNS)]
    write_communication(responses, features, target, say)
