"""The options and set-up every command that calls models shares (annotate, eigenbench
run, lmlpa run): declared once so `--max-cost` or `--cache-dir` means the same in each,
and one way to run a method (`ApiChoice.run`) that words the library's parameters as
these flags."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from ffsite.collect.api import (
    BASE_URL_VARIABLE,
    LOGGER,
    Api,
    Endpoint,
    RetryPolicy,
    default_cache_dir,
    endpoint_from_env,
    insecure_base_url,
    load_prices,
)
from ffsite.collect.run import MAX_INVALID, Method
from ffsite.collect.run import run as run_method
from ffsite.commands.options import ATTEMPTS, CONCURRENCY, flag
from ffsite.errors import FfsiteError, ParameterError

_OPTIONS = (
    click.option("--concurrency", type=CONCURRENCY, default=16, show_default=True,
                 help="API calls in flight at most."),
    click.option("--max-cost", type=click.FloatRange(min=0),
                 help="Spend at most this many USD in this run (cached calls are free)."),
    click.option("--prices", type=click.Path(dir_okay=False, exists=True),
                 help='Price file: {"model": {"input": USD per 1M tokens, "output": ...}}.'),
    click.option("--dry-run", is_flag=True, help="Estimate calls, tokens and cost; send "
                 "nothing."),
    click.option("--cache-dir", type=click.Path(file_okay=False),
                 help="Where answered calls are kept (default: ~/.cache/ffsite/annotate)."),
    click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0,
                 show_default=True, help="Seconds per attempt."),
    click.option("--max-attempts", type=ATTEMPTS, default=5, show_default=True,
                 help="Attempts per call before it counts as failed."),
    click.option("--backoff", type=click.FloatRange(min=0), default=1.0, show_default=True,
                 help="Seconds before the first retry; doubles per attempt (with jitter)."),
    click.option("--log", "log_file", type=click.Path(dir_okay=False),
                 help="Append retries and failures to this file."),
)
_NAMES = ("concurrency", "max_cost", "prices", "dry_run", "cache_dir", "timeout",
          "max_attempts", "backoff", "log_file")


def max_invalid_option(counted: str = "votes") -> Callable[..., Any]:
    """--max-invalid: the share of invalid votes (ratings) above which a run fails."""
    return click.option("--max-invalid", type=click.FloatRange(0, 1), default=MAX_INVALID,
                        show_default=True, help="Fail (write nothing) when a larger share "
                        f"of the {counted} is invalid.")


def api_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the API options; the command gets them as one `api` (an `ApiChoice`)."""

    @functools.wraps(command)
    def wrapper(**kwargs):
        try:
            choice = ApiChoice(**{name: kwargs.pop(name) for name in _NAMES})
            return command(api=choice, **kwargs)
        except ParameterError as error:
            # Worded here, not only by `ffsite.cli.main`: a caller in this process (click's
            # test runner) then sees the error as the terminal shows it.
            raise ParameterError(error.worded(flag), error.param,
                                 *error.params[1:]) from None

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


class ApiChoice:
    """What the user chose: `api` (the run's `Api`), `dry_run`, and `run(method)`: the
    method through the skeleton, with the endpoint open (warning about plain HTTP) and
    the --log file attached."""

    def __init__(self, *, concurrency: int, max_cost: float | None, prices: str | None,
                 dry_run: bool, cache_dir: str | None, timeout: float, max_attempts: int,
                 backoff: float, log_file: str | None):
        self.api = Api(cache_dir=Path(cache_dir) if cache_dir else default_cache_dir(),
                       concurrency=concurrency, max_cost=max_cost, prices=load_prices(prices),
                       policy=RetryPolicy(max_attempts=max_attempts, timeout=timeout,
                                          backoff=backoff))
        self.dry_run = dry_run
        self.log_file = log_file

    def run(self, method: Method) -> dict | None:
        """Run (or with --dry-run, estimate) `method`, reporting on stdout."""
        with self.endpoint() as endpoint:
            return run_method(method, endpoint, dry=self.dry_run, echo=click.echo,
                              name_of=flag)

    @contextlib.contextmanager
    def endpoint(self) -> Iterator[Endpoint]:
        endpoint = endpoint_from_env()
        if insecure_base_url(endpoint.base_url):
            click.echo(f"warning: {BASE_URL_VARIABLE} {endpoint.redact(endpoint.base_url)} "
                       "is plain HTTP to another machine: the API key crosses the network "
                       "readable; use https://", err=True)
        handler = _log_to(self.log_file)
        try:
            yield endpoint
        finally:
            if handler is not None:
                logging.getLogger(LOGGER).removeHandler(handler)
                handler.close()


def _log_to(path: str | None) -> logging.Handler | None:
    if path is None:
        return None
    try:
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError as exc:
        raise FfsiteError(f"--log {path}: cannot open it ({exc.strerror}); create its folder "
                          "or pick another --log") from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger(LOGGER)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return handler
