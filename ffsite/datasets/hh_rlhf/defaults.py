"""HH-RLHF's default annotations: the crowdworkers' preferences, rules-judge votes on the
same comparisons, and communication traits."""

from __future__ import annotations

from pathlib import Path

from ffsite.datasets.defaults import (
    Settings,
    comparisons,
    write_communication,
    write_preferences,
    write_rules,
)
from ffsite.datasets.hh_rlhf import reader
from ffsite.datasets.hh_rlhf.importer import import_hh_rlhf
from ffsite.judges.apply import dataset_responses, measure


def write_defaults(root: Path, target: Path, settings: Settings) -> None:
    path, say = root / reader.FILE, settings.say
    imported = import_hh_rlhf(path, seed=settings.seed)
    write_preferences(imported, target, say)
    pairs = reader.read_pairs(path)
    texts = {**dict(zip(pairs["chosen_id"], pairs["chosen"], strict=True)),
             **dict(zip(pairs["rejected_id"], pairs["rejected"], strict=True))}
    features = measure(texts, texts)
    compared = comparisons(imported.table)
    write_rules(compared, features, target / "rules.parquet", say)
    write_communication(dataset_responses(compared), features, target, say)
