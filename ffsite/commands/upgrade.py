import click

from ffsite.format.upgrade import upgrade_paths


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
def upgrade(paths: tuple[str, ...]) -> None:
    """Rewrite format version 1 annotation files as version 2, in place (default:
    annotations/)."""
    for line in upgrade_paths(paths or ("annotations",)):
        click.echo(line)
