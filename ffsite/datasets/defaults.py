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

Each dataset's folder holds its own step (`defaults.py`, named by its record); this module
runs the steps of the datasets the base data holds, and holds what the steps share.
Everything is seeded and sorted, so the same base data gives byte-identical files.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ffsite.datasets import DATASETS, folder
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import schema, write_response_metrics, write_scores, write_votes
from ffsite.importers.result import ImportResult, ScoresImport
from ffsite.judges.apply import communication_rows, rule_votes
from ffsite.judges.rules import RULES_VERSION

SEED = 0
# Instructions on which the other models are paired with each other: 200 of 805 gives
# each model 200 comparisons with random partners (about 3 with each other model), on top
# of its 805 against the reference; enough to tie the ratings together, small on disk.
PAIR_PROMPTS = 200


@dataclass(frozen=True)
class Settings:
    """What every dataset's step is given besides its folders."""

    seed: int = SEED
    pair_prompts: int = PAIR_PROMPTS
    say: Callable[[str], None] = print


def default_annotations(base_dir: str | os.PathLike | None, out: str | os.PathLike, *,
                        seed: int = SEED, pair_prompts: int = PAIR_PROMPTS,
                        say: Callable[[str], None] = print) -> None:
    """Write the default annotation files for every base dataset that is available."""
    found = folder.base_dir(base_dir)
    if found is None:
        raise ParameterError(f"no base data: pass {{base_dir}} DIR or set {folder.ENV} "
                             "(ffsite fetch downloads it)", "base_dir")
    out = Path(out)
    steps = [dataset for dataset in DATASETS if dataset.defaults]
    missing = [d.id for d in steps if not folder.is_available(found, d.id)]
    if len(missing) == len(steps):
        raise FfsiteError(f"{found}: holds none of the base datasets "
                          f"{', '.join(d.id for d in steps)}; run ffsite fetch or check the "
                          "folder")
    settings = Settings(seed=seed, pair_prompts=pair_prompts, say=say)
    for dataset in steps:
        if dataset.id not in missing:
            dataset.hook("defaults")(found / dataset.id, out / dataset.id, settings)
    note = folder.omitted_note(missing, what="default annotations")
    if note:
        say(note)


# ---------------------------------------------------------- what the steps share

def comparisons(votes: pd.DataFrame) -> pd.DataFrame:
    """One row per comparison of an importer's votes frame (comparison and meta columns)."""
    columns = [*schema.COMPARISON_COLUMNS,
               *sorted(c for c in votes.columns if c.startswith(schema.META_PREFIX))]
    return votes[columns].drop_duplicates("comparison_id").reset_index(drop=True)


def write_scores_import(imported: ScoresImport, target: Path, say: Callable[[str], None]
                        ) -> None:
    """A scores importer's result as `target`/scores.parquet, and what it left out."""
    path = target / "scores.parquet"
    written = write_scores(imported.frame, path, judges=imported.judges, extra=imported.extra)
    say(f"wrote {path}: {written} scores")
    for line in imported.report:
        say(f"note: {line}")


def write_preferences(imported: ImportResult, target: Path, say: Callable[[str], None]
                      ) -> None:
    path = target / "preferences.parquet"
    left_out = dict(sorted(imported.skipped.items()))
    table = write_votes(imported.table, path, default_preference=imported.default_preference,
                        annotators=imported.annotators,
                        extra={"left_out": left_out} if left_out else None)
    say(f"wrote {path}: {table.num_rows} preference votes")


def write_rules(comparisons: pd.DataFrame, features: pd.DataFrame, path: Path,
                say: Callable[[str], None], *, left_out: dict[str, int] | None = None
                ) -> None:
    # The same metadata as `ffsite annotate --judge rules` writes, so either makes this file
    # (and what was left out, when something was).
    dataset = str(comparisons["dataset"].iloc[0]) if len(comparisons) else None
    extra = {"judge": RULES_VERSION, "dataset": dataset}
    if left_out and any(left_out.values()):
        extra["left_out"] = left_out
    table = write_votes(rule_votes(comparisons, features), path, extra=extra)
    say(f"wrote {path}: {table.num_rows} votes of {RULES_VERSION} on {len(comparisons)} "
        "comparisons")


def write_communication(responses: pd.DataFrame, features: pd.DataFrame, target: Path,
                        say: Callable[[str], None]) -> None:
    path = target / "communication.parquet"
    write_response_metrics(communication_rows(responses, features), path,
                           extra={"measures": "communication"})
    say(f"wrote {path}: communication traits of {len(responses)} responses")
