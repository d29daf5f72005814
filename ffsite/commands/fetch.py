"""`ffsite fetch`: download the base datasets (texts) each dataset lists, or a declaration's."""

from __future__ import annotations

from pathlib import Path

import click

from ffsite.datasets.folder import ENV


@click.command(name="fetch")
@click.argument("names", nargs=-1)
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to put the files (default: ~/.cache/ffsite/base-data).")
@click.option("--sources", type=click.Path(dir_okay=False, path_type=Path),
              help="A declaration of sources and checksums (default: the files each "
              "dataset lists).")
@click.option("--check", "check_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Download nothing; compare this local copy with the checksums.")
def fetch(names: tuple[str, ...], cache_dir: Path | None, sources: Path | None,
          check_dir: Path | None) -> None:
    """Download base datasets NAMES (default: all), resumable and checksum-verified."""
    from ffsite.datasets import fetch as base_fetch  # httpx: not for `--help`
    from ffsite.progress import Progress

    declared = (base_fetch.read_declaration(sources) if sources
                else base_fetch.dataset_declarations())
    if check_dir is not None:
        for line in base_fetch.check_copy(declared, names, check_dir):
            click.echo(line)
        return
    target = cache_dir or base_fetch.default_cache_dir()
    progress = Progress().per_label(unit="MB", scale=1e6)  # a task per file
    try:
        lines = base_fetch.fetch(declared, names, target, progress=progress)
    finally:
        progress.close()
    for line in lines:
        click.echo(line)
    click.echo(f"base data in {target}; use it with --base-data {target} or {ENV}={target}")
