"""`ffsite export annotated-pairs`: our files as FF AnnotatedPairs v2."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ffsite.commands.options import annotation_paths, base_data_option, out_option
from ffsite.errors import FfsiteError


@click.group(name="export")
def export_group() -> None:
    """Export annotation files to other formats."""


@export_group.command("annotated-pairs")
@annotation_paths
@out_option("The AnnotatedPairs JSON file to write.", required=True)
@base_data_option("Base-data folder to take texts from.")
def annotated_pairs(paths: tuple[str, ...], out: str, base_data: Path | None) -> None:
    """Write AnnotatedPairs v2 JSON that feedback-forensics can open."""
    from ffsite._atomic import write_text  # here: `--help` needs none of them
    from ffsite.datasets.texts import read_texts
    from ffsite.format.read import read_annotations
    from ffsite.importers.annotated_pairs import to_annotated_pairs
    from ffsite.metrics.judges import separate_judges

    annotations = separate_judges(read_annotations(paths))  # one annotator per judge
    texts = {}
    if base_data is not None:
        for dataset in annotations.datasets:
            found = read_texts(base_data, dataset)
            if not found:  # empty texts in the export would look like real ones
                raise FfsiteError(f"base data {base_data} has no texts for dataset "
                                  f"'{dataset}'; run ffsite fetch {dataset} (or import it with "
                                  "--base-out), or export without --base-data")
            texts[dataset] = found
    document = to_annotated_pairs(annotations, texts=texts)
    write_text(out, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    click.echo(f"wrote {out}: {len(document['comparisons'])} comparisons, "
               f"{len(document['annotators'])} annotators")
