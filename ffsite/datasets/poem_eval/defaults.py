"""poem-eval's default annotations: the judge's scores of every poem."""

from __future__ import annotations

from pathlib import Path

from ffsite.datasets.defaults import Settings, write_scores_import
from ffsite.datasets.poem_eval.importer import import_poem_eval


def write_defaults(root: Path, target: Path, settings: Settings) -> None:
    write_scores_import(import_poem_eval(root), target, settings.say)
