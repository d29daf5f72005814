from pathlib import Path

import click
from click.core import ParameterSource

from ffsite.commands.options import annotation_paths, content_option
from ffsite.errors import FfsiteError


@click.command()
@annotation_paths
@click.option("--site", type=click.Path(file_okay=False, exists=True),
              help="Also check PATHS as contributions to the site whose annotations are here "
              "(new model, recorded judge and traits, the site's prompts, size cap).")
@click.option("--replace", is_flag=True,
              help="With --site: the model may already be there (its earlier contribution "
              "is replaced).")
@content_option
@click.pass_context
def validate(ctx: click.Context, paths: tuple[str, ...], site: str | None,
             replace: bool, content: str) -> None:
    """Check annotation files against the format (default: annotations/), and say which
    entries of the model registry (content/models.toml) match no model in them."""
    from ffsite.collect.annotate.contrib import check_contribution  # not for `--help`
    from ffsite.format import find_annotation_files, read_annotations, read_scores
    from ffsite.format.validate import validate_paths
    from ffsite.models import REGISTRY_FILE, load_registry, names_seen
    from ffsite.site.config import CONFIG_FILE, load_config

    if site is not None and ctx.get_parameter_source("paths") is ParameterSource.DEFAULT:
        raise FfsiteError("--site checks contributed files: give them as PATHS, e.g. "
                          "ffsite validate annotations/contrib/my-model.parquet --site annotations")
    for line in validate_paths(paths):
        click.echo(line)
    # The registry as `build` reads it: with site.toml's reference model, if there is one.
    settings = Path(content) / CONFIG_FILE
    reference = load_config(content).reference_model if settings.is_file() else None
    registry = load_registry(content, reference=reference)
    seen = names_seen(read_annotations(paths), read_scores(paths))
    registry.check_merges(seen)
    for alias in registry.unmatched(seen):
        click.echo(f"note: {content}/{REGISTRY_FILE}: alias {alias} matches no model in "
                   "these files (a typo, or a model the data no longer has)")
    if site is not None:
        for path in find_annotation_files(paths):
            click.echo(check_contribution(path, site, replace=replace))
