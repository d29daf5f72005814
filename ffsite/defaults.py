"""The embedded default: regenerate annotations/ from the public base data.

    ffsite default-annotations --base-data ../shared/data --out annotations/

writes, from ffsite's own importers and the rule-based judge (ids, votes, numbers; no text):

    alpaca_eval/preferences.parquet    every model against gpt4_1106_preview, with the
                                       AlpacaEval 2.0 judge's preference where it has one
    alpaca_eval/rules.parquet          rules-judge votes on those comparisons
    alpaca_eval/model-pairs.parquet    sampled comparisons between two other models on the
                                       same instruction, with rules-judge votes
    alpaca_eval/communication.parquet  the 21 communication traits of every response
    hh_rlhf/preferences.parquet        chosen vs rejected, the crowdworkers' preference
    hh_rlhf/rules.parquet              rules-judge votes on those comparisons
    hh_rlhf/communication.parquet      the 21 communication traits of every response
    behavioral_profiling/scores.parquet  the judge panel's 1-10 scores of 46 models' answers
                                       on nine dimensions, in all six conditions
    eqbench3/votes.parquet             Claude 3.7 Sonnet's pairwise verdicts per criterion,
                                       with margins

Everything is seeded and sorted, so the same base data gives byte-identical files.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from ffsite.base import alpaca_eval, behavioral_profiling, eqbench3, hh_rlhf, registry
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import schema, write_response_metrics, write_scores, write_votes
from ffsite.importers.alpaca_eval import model_pairs, preference_votes
from ffsite.importers.behavioral_profiling import import_behavioral_profiling
from ffsite.importers.eqbench3 import JUDGE as EQ_JUDGE
from ffsite.importers.eqbench3 import import_eqbench3
from ffsite.importers.hh_rlhf import import_hh_rlhf
from ffsite.importers.result import ImportResult
from ffsite.judges.apply import communication_rows, dataset_responses, measure, rule_votes
from ffsite.judges.rules import RULES_VERSION

SEED = 0
# Instructions on which the other models are paired with each other: 200 of 805 gives
# each model 200 comparisons with random partners (about 3 with each other model), on top
# of its 805 against the reference; enough to tie the ratings together, small on disk.
PAIR_PROMPTS = 200


def default_annotations(base_dir: str | os.PathLike | None, out: str | os.PathLike, *,
                        seed: int = SEED, pair_prompts: int = PAIR_PROMPTS,
                        say: Callable[[str], None] = print) -> None:
    """Write the default annotation files for every base dataset that is available."""
    folder = registry.base_dir(base_dir)
    if folder is None:
        raise ParameterError(f"no base data: pass {{base_dir}} DIR or set {registry.ENV} "
                             "(ffsite fetch downloads it)", "base_dir")
    out = Path(out)
    builders = {alpaca_eval.NAME: lambda root, target: _alpaca_eval(
                    root, target, seed=seed, pair_prompts=pair_prompts, say=say),
                hh_rlhf.NAME: lambda root, target: _hh_rlhf(root, target, seed=seed, say=say),
                behavioral_profiling.NAME: lambda root, target: _behavioral_profiling(
                    root, target, say=say),
                eqbench3.NAME: lambda root, target: _eqbench3(root, target, say=say)}
    missing = [name for name in builders if not registry.is_available(folder, name)]
    if len(missing) == len(builders):
        raise FfsiteError(f"{folder}: holds none of the base datasets "
                          f"{', '.join(builders)}; run ffsite fetch or check the folder")
    for name, build in builders.items():
        if name not in missing:
            build(folder / name, out / name)
    note = registry.omitted_note(missing, what="default annotations")
    if note:
        say(note)


def _alpaca_eval(root: Path, target: Path, *, seed: int, pair_prompts: int,
                 say: Callable[[str], None]) -> None:
    reference = alpaca_eval.REFERENCE_MODEL
    outputs = alpaca_eval.load_outputs(root)
    imported = preference_votes(outputs, alpaca_eval.load_judge_annotations(root),
                                reference=reference, seed=seed)
    _write_preferences(imported, target, say)
    features = measure(outputs["response_id"],
                       dict(zip(outputs["response_id"], outputs["output"], strict=True)))
    _write_rules(_comparisons(imported.table), features, target / "rules.parquet", say)
    pairs = model_pairs(outputs, reference=reference, seed=seed, n_prompts=pair_prompts)
    _write_rules(pairs, features, target / "model-pairs.parquet", say)
    responses = outputs.assign(dataset=alpaca_eval.NAME)[list(schema.RESPONSE_ID_COLUMNS)]
    _write_communication(responses, features, target, say)


def _hh_rlhf(root: Path, target: Path, *, seed: int, say: Callable[[str], None]) -> None:
    path = root / hh_rlhf.FILE
    imported = import_hh_rlhf(path, seed=seed)
    _write_preferences(imported, target, say)
    pairs = hh_rlhf.read_pairs(path)
    texts = {**dict(zip(pairs["chosen_id"], pairs["chosen"], strict=True)),
             **dict(zip(pairs["rejected_id"], pairs["rejected"], strict=True))}
    features = measure(texts, texts)
    comparisons = _comparisons(imported.table)
    _write_rules(comparisons, features, target / "rules.parquet", say)
    _write_communication(dataset_responses(comparisons), features, target, say)


def _behavioral_profiling(root: Path, target: Path, *, say: Callable[[str], None]) -> None:
    imported = import_behavioral_profiling(root)
    path = target / "scores.parquet"
    written = write_scores(imported.frame, path, judges=imported.judges, extra=imported.extra)
    say(f"wrote {path}: {written} scores")
    for line in imported.report:
        say(f"note: {line}")


def _eqbench3(root: Path, target: Path, *, say: Callable[[str], None]) -> None:
    imported = import_eqbench3(root / eqbench3.COMPARISONS_FILE)
    path = target / "votes.parquet"
    written = write_votes(imported.table, path, extra={
        "source": eqbench3.NAME, "judge": EQ_JUDGE,
        "left_out": dict(sorted(imported.skipped.items()))})
    say(f"wrote {path}: {written.num_rows} votes on {written.num_comparisons} comparisons "
        f"({', '.join(f'{n} {why}' for why, n in imported.skipped.items())} left out)")


def _comparisons(votes: pd.DataFrame) -> pd.DataFrame:
    """One row per comparison of an importer's votes frame (comparison and meta columns)."""
    columns = [*schema.COMPARISON_COLUMNS,
               *sorted(c for c in votes.columns if c.startswith(schema.META_PREFIX))]
    return votes[columns].drop_duplicates("comparison_id").reset_index(drop=True)


def _write_preferences(imported: ImportResult, target: Path, say: Callable[[str], None]
                       ) -> None:
    path = target / "preferences.parquet"
    table = write_votes(imported.table, path, default_preference=imported.default_preference,
                        annotators=imported.annotators)
    say(f"wrote {path}: {table.num_rows} preference votes")


def _write_rules(comparisons: pd.DataFrame, features: pd.DataFrame, path: Path,
                 say: Callable[[str], None]) -> None:
    # The same metadata as `ffsite annotate --judge rules` writes, so either makes this file.
    dataset = str(comparisons["dataset"].iloc[0]) if len(comparisons) else None
    table = write_votes(rule_votes(comparisons, features), path,
                        extra={"judge": RULES_VERSION, "dataset": dataset})
    say(f"wrote {path}: {table.num_rows} votes of {RULES_VERSION} on {len(comparisons)} "
        "comparisons")


def _write_communication(responses: pd.DataFrame, features: pd.DataFrame, target: Path,
                         say: Callable[[str], None]) -> None:
    path = target / "communication.parquet"
    write_response_metrics(communication_rows(responses, features), path,
                           extra={"measures": "communication"})
    say(f"wrote {path}: communication traits of {len(responses)} responses")
