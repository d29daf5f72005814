"""`ffsite serve`: build the site and preview it on 127.0.0.1, rebuilding on change."""

from __future__ import annotations

import threading
from pathlib import Path
from urllib.parse import urlsplit

import click

from ffsite._text import for_terminal
from ffsite.commands.build import examples_base_data_option, run_build, site_out_option
from ffsite.commands.options import (
    annotations_option,
    content_option,
    error_line,
    templates_option,
)
from ffsite.errors import FfsiteError


def _report(exc: Exception) -> None:
    """An unexpected error in the watcher: say so, and keep serving the previous site."""
    click.echo(for_terminal(f"error: rebuild failed ({type(exc).__name__}: {exc}); still "
                            "serving the previous site and watching for changes"), err=True)


@click.command(name="serve")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port on 127.0.0.1 (0: any free port).")
@click.option("--prefix", help="Serve under this subpath, as a project site would be "
              "(default: the path of base_url in site.toml, else /).")
@click.option("--watch/--no-watch", default=True, show_default=True,
              help="Rebuild when annotations, content or templates change.")
@annotations_option()
@examples_base_data_option
@content_option
@templates_option
@site_out_option
@click.option("--force", is_flag=True,
              help="Build first even when the site was built from the same inputs.")
def serve(port: int, prefix: str | None, watch: bool, annotations: str,
          base_data: Path | None, content: str, templates: str, out: str,
          force: bool) -> None:
    """Build the site and serve it for preview on 127.0.0.1."""
    from ffsite.site import serve as preview  # here: `--help` needs none of them
    from ffsite.site.config import load_config
    from ffsite.site.context import ResultsCache

    if prefix is None:  # where the site will live, so the 404 page's links work too
        base_url = load_config(content).base_url
        prefix = urlsplit(base_url).path if base_url else "/"
    server = preview.make_server(out, port, prefix)  # first, so a busy port fails before the build
    from ffsite.site.rerender import rerender

    cache = ResultsCache()  # rebuilds reuse the ratings while the files stay the same
    # A change to templates only re-renders the pages using them (ffsite.site.rerender);
    # any other change rebuilds.  This is what the annotations and content were.
    others = [Path(annotations), Path(content)]
    built_from = [preview.snapshot(others, ignore=[Path(out)])]

    def rebuild() -> None:
        try:
            now = preview.snapshot(others, ignore=[Path(out)])
            if cache.site is not None and now == built_from[0]:
                rerender(cache.site)
                click.echo("re-rendered the pages of the changed templates", err=True)
                return
            run_build(annotations, base_data, content, templates, out, quiet=True,
                      cache=cache)
            built_from[0] = now
            click.echo("rebuilt", err=True)
        except FfsiteError as exc:
            click.echo(f"error: {error_line(exc)} (still serving the previous site)", err=True)

    stop = threading.Event()
    try:
        run_build(annotations, base_data, content, templates, out, quiet=False, cache=cache,
                  force=force)
        if watch:
            # Looked at ten times a second (a listing of these folders costs under a
            # millisecond on the default site) and settled for 0.1 s, longer than an
            # editor takes to save (a save caught half-way is a template error, shown,
            # and fixed by the next look): a base.html edit shows within about 2 s of
            # saving it, re-render of every page included.
            preview.watch([Path(annotations), Path(content), Path(templates)], rebuild, stop,
                          interval=0.1, settle=0.1, on_error=_report, ignore=[Path(out)])
        click.echo(f"serving {out} at {preview.url_of(server, prefix)} (Ctrl+C stops)")
        server.serve_forever()
    finally:
        stop.set()
        server.server_close()
