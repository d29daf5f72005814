"""Behavioral Profiling's default annotations: the panel's scores, every condition."""

from __future__ import annotations

from pathlib import Path

from ffsite.datasets.behavioral_profiling.importer import import_behavioral_profiling
from ffsite.datasets.defaults import Settings, write_scores_import


def write_defaults(root: Path, target: Path, settings: Settings) -> None:
    write_scores_import(import_behavioral_profiling(root), target, settings.say)
