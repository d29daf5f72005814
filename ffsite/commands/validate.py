import click

from ffsite.format.validate import validate_paths


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
def validate(paths: tuple[str, ...]) -> None:
    """Check annotation files against the format (default: annotations/)."""
    for line in validate_paths(paths or ("annotations",)):
        click.echo(line)
