import click

from ffsite.commands.options import annotation_paths


@click.command()
@annotation_paths
def upgrade(paths: tuple[str, ...]) -> None:
    """Rewrite format version 1 annotation files as version 2, in place (default:
    annotations/)."""
    from ffsite.format.upgrade import upgrade_paths

    for line in upgrade_paths(paths):
        click.echo(line)
