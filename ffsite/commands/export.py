"""`ffsite export annotated-pairs`: our files as FF AnnotatedPairs v2."""

from __future__ import annotations

import json
import os

import click

from ffsite._atomic import write_text
from ffsite.base.texts import read_texts
from ffsite.format.read import read_annotations
from ffsite.importers.annotated_pairs import to_annotated_pairs


@click.group(name="export")
def export_group() -> None:
    """Export annotation files to other formats."""


@export_group.command("annotated-pairs")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--out", required=True, type=click.Path(dir_okay=False))
@click.option("--base-data", type=click.Path(file_okay=False), envvar="FFSITE_BASE_DATA",
              help="Base-data folder to take texts from (default: $FFSITE_BASE_DATA).")
def annotated_pairs(paths: tuple[str, ...], out: str, base_data: str | None) -> None:
    """Write AnnotatedPairs v2 JSON that feedback-forensics can open."""
    annotations = read_annotations(paths or ("annotations",))
    texts = {}
    if base_data and os.path.isdir(base_data):
        for dataset in annotations.datasets:
            found = read_texts(base_data, dataset)
            if found:
                texts[dataset] = found
    document = to_annotated_pairs(annotations, texts=texts)
    write_text(out, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    click.echo(f"wrote {out}: {len(document['comparisons'])} comparisons, "
               f"{len(document['annotators'])} annotators")
