"""EQ-Bench 3's default annotations: the judge's verdicts per criterion, with margins."""

from __future__ import annotations

from pathlib import Path

from ffsite.datasets.defaults import Settings
from ffsite.datasets.eqbench3 import reader
from ffsite.datasets.eqbench3.importer import import_eqbench3
from ffsite.datasets.eqbench3.rules import JUDGE
from ffsite.format import write_votes


def write_defaults(root: Path, target: Path, settings: Settings) -> None:
    imported = import_eqbench3(root / reader.COMPARISONS_FILE)
    path = target / "votes.parquet"
    written = write_votes(imported.table, path, extra={
        "source": reader.NAME, "judge": JUDGE,
        "left_out": dict(sorted(imported.skipped.items()))})
    settings.say(f"wrote {path}: {written.num_rows} votes on {written.num_comparisons} "
                 f"comparisons ({', '.join(f'{n} {why}' for why, n in imported.skipped.items())}"
                 " left out)")
