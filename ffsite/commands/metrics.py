"""`ffsite metrics`: the FF metrics table for one reference annotation."""

from __future__ import annotations

import click

from ffsite.commands._output import emit
from ffsite.commands.options import LENGTH_MEASURES, annotation_paths, format_option
from ffsite.errors import ParameterError
from ffsite.metrics.combine import RULES


@click.command()
@annotation_paths
@click.option("--against", default="preference", show_default=True,
              help="'preference', 'preference:JUDGE' or 'model:NAME'.")
@click.option("--reference-models", default="",
              help="Comma-separated models a target model is compared with (default: all).")
@click.option("--dataset", help="Only this dataset.")
@click.option("--split-by", help="'dataset' or a metadata column: one row per value.")
@click.option("--combine", "rule", type=click.Choice(RULES), default="majority",
              show_default=True, help="How repeated votes on one comparison combine.")
@click.option("--judge", "judges", multiple=True, help="Only votes from this judge.")
@click.option("--length-control", type=click.Choice(LENGTH_MEASURES), default=None,
              help="Add each trait's strength with the answers' length difference held at "
                   "zero (lc_strength, lc_ci_low, lc_ci_high, length_effect, ...), lengths "
                   "from the response-metrics files in PATHS, in this measure.")
@format_option
def metrics(paths: tuple[str, ...], against: str, reference_models: str, dataset: str | None,
            split_by: str | None, rule: str, judges: tuple[str, ...],
            length_control: str | None, fmt: str) -> None:
    """Per-trait strength, relevance and Cohen's kappa against a reference annotation."""
    if length_control and split_by:
        raise ParameterError("{length_control} fits one model per trait over all the rows; "
                             "it cannot be split: drop {split_by}, or pick a --dataset",
                             "length_control", "split_by")
    from ffsite.format.read import read_annotations  # here: `--help` needs none of them
    from ffsite.format.response_metrics import read_response_metrics
    from ffsite.metrics.judges import separate_judges
    from ffsite.metrics.results import metrics_table, response_lengths, with_length_control

    # Read only what the table needs: the checks of unread columns are `validate`'s job.
    needed = ["model_a", "model_b"] if against.startswith("model:") else []
    if length_control:
        needed += ["response_a_id", "response_b_id"]
    if split_by:
        needed += [split_by, "meta." + split_by]
    annotations = read_annotations(paths, columns=needed)
    if not judges:  # naming judges pools them on purpose; otherwise each stays apart
        annotations = separate_judges(annotations)
    references = [m.strip() for m in reference_models.split(",") if m.strip()]
    table = metrics_table(annotations, against=against, reference_models=references,
                          dataset=dataset, split_by=split_by, rule=rule, judges=judges)
    if length_control:
        lengths = response_lengths(annotations, read_response_metrics(paths), length_control)
        table = with_length_control(table, annotations, lengths, against=against,
                                    dataset=dataset, rule=rule, judges=judges)
    emit(table, fmt)
