import click
from click.core import ParameterSource

from ffsite.annotate.contrib import check_contribution
from ffsite.commands.options import annotation_paths
from ffsite.errors import FfsiteError
from ffsite.format.read import find_annotation_files
from ffsite.format.validate import validate_paths


@click.command()
@annotation_paths
@click.option("--site", type=click.Path(file_okay=False, exists=True),
              help="Also check PATHS as contributions to the site whose annotations are here "
              "(new model, recorded judge and traits, the site's prompts, size cap).")
@click.option("--replace", is_flag=True,
              help="With --site: the model may already be there (its earlier contribution "
              "is replaced).")
@click.pass_context
def validate(ctx: click.Context, paths: tuple[str, ...], site: str | None,
             replace: bool) -> None:
    """Check annotation files against the format (default: annotations/)."""
    if site is not None and ctx.get_parameter_source("paths") is ParameterSource.DEFAULT:
        raise FfsiteError("--site checks contributed files: give them as PATHS, e.g. "
                          "ffsite validate annotations/contrib/my-model.parquet --site annotations")
    for line in validate_paths(paths):
        click.echo(line)
    if site is not None:
        for path in find_annotation_files(paths):
            click.echo(check_contribution(path, site, replace=replace))
