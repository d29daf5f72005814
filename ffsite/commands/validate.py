import click

from ffsite.annotate.contrib import check_contribution
from ffsite.errors import FfsiteError
from ffsite.format.read import find_annotation_files
from ffsite.format.validate import validate_paths


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--site", type=click.Path(file_okay=False, exists=True),
              help="Also check PATHS as contributions to the site whose annotations are here "
              "(new model, recorded judge and traits, the site's prompts, size cap).")
@click.option("--replace", is_flag=True,
              help="With --site: the model may already be there (its earlier contribution "
              "is replaced).")
def validate(paths: tuple[str, ...], site: str | None, replace: bool) -> None:
    """Check annotation files against the format (default: annotations/)."""
    if site is not None and not paths:
        raise FfsiteError("--site checks contributed files: give them as PATHS, e.g. "
                          "ffsite validate annotations/contrib/my-model.parquet --site annotations")
    for line in validate_paths(paths or ("annotations",)):
        click.echo(line)
    if site is not None:
        for path in find_annotation_files(paths):
            click.echo(check_contribution(path, site, replace=replace))
