"""Behavioral Profiling's default annotations: the panel's scores, every condition."""

from __future__ import annotations

from pathlib import Path

from ffsite.datasets.behavioral_profiling.importer import import_behavioral_profiling
from ffsite.datasets.defaults import Settings
from ffsite.format import write_scores


def write_defaults(root: Path, target: Path, settings: Settings) -> None:
    imported = import_behavioral_profiling(root)
    path = target / "scores.parquet"
    written = write_scores(imported.frame, path, judges=imported.judges, extra=imported.extra)
    settings.say(f"wrote {path}: {written} scores")
    for line in imported.report:
        settings.say(f"note: {line}")
