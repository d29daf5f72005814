"""llm-dreams' default annotations: every judge's scores of every answer set."""

from __future__ import annotations

from pathlib import Path

from ffsite.datasets.defaults import Settings, write_scores_import
from ffsite.datasets.llm_dreams.importer import import_llm_dreams


def write_defaults(root: Path, target: Path, settings: Settings) -> None:
    write_scores_import(import_llm_dreams(root), target, settings.say)
