"""What a cold build of the default site must compute before it writes a page: every fit
and resampling, timed on one core, and the floor that puts under the build's wall time.

    python benchmarks/bench_fits.py [--base-data ../shared/data] [--runs 3]

One in-process cold build (a new cache folder, a new output folder) made to believe the
machine has one core, so nothing is forked or threaded and each call's CPU time is its
own.  The build's fitting and resampling functions are wrapped (every module's name for
them, so calls through `from ... import` are timed too) and each outermost call is timed
with the thread's CPU clock: a fit called inside another (ranks inside the ratings) is
counted once, in the outer one.  Prints the median over --runs builds of each function's
CPU seconds, their sum, the whole build's CPU, and the sum over two cores: no schedule on
a 2-core machine builds the site faster than that, whatever the pages cost.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# (module, function, what it is): the fits and resamplings of a build.
FITS = [
    ("ffsite.metrics.ratings", "rate_trait",
     "Bradley-Terry + Firth ratings, one trait, 1,000 bootstrap refits"),
    ("ffsite.metrics.eigenbench.method", "_eigenbench",
     "EigenBench: d by held-out likelihood, 8 starts, 200 + 200 refits"),
    ("ffsite.datasets.eqbench3.scale", "chain_games", "EQ-Bench 3: the TrueSkill chains' games"),
    ("ffsite.datasets.eqbench3.scale", "trueskill", "EQ-Bench 3: TrueSkill over 1,000 chains"),
    ("ffsite.metrics.intervals", "metric_intervals", "Feedback Forensics strengths' bootstrap"),
    ("ffsite.metrics.from_scores", "score_means", "judge scores: means' bootstrap"),
    ("ffsite.metrics.from_scores", "strength_from_scores", "judge scores: strengths' bootstrap"),
    ("ffsite.metrics.from_scores", "pressure_shifts", "judge scores: pressure shifts' bootstrap"),
    ("ffsite.metrics.from_scores", "bend_index", "judge scores: bend index' bootstrap"),
    ("ffsite.metrics.panel", "agreement", "judge panels: agreement's bootstrap"),
    ("ffsite.metrics.panel", "leniency", "judge panels: leniency's bootstrap"),
    ("ffsite.metrics.big_five", "big_five", "Big Five's bootstrap"),
    ("ffsite.metrics.ranking", "rank_ranges", "rank ranges over refits (outside the fits)"),
]


class Timer:
    """CPU seconds of the outermost wrapped calls, by function."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.depth = 0

    def wrap(self, name: str, function):
        @functools.wraps(function)
        def timed(*args, **kwargs):
            if self.depth:
                return function(*args, **kwargs)
            self.depth += 1
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] += time.thread_time() - started
                self.calls[name] += 1
                self.depth -= 1
        return timed


def wrap_fits(timer: Timer) -> list[tuple[object, str, object]]:
    """Replace each fit, under every name an ffsite module holds it by; returns (module,
    name, original) of each replacement, to undo them."""
    replaced = []
    for module_name, attribute, _ in FITS:
        module = importlib.import_module(module_name)
        original = getattr(module, attribute)
        timed = timer.wrap(attribute, original)
        for loaded in list(sys.modules.values()):
            if getattr(loaded, "__name__", "").startswith("ffsite") and getattr(
                    loaded, attribute, None) is original:
                setattr(loaded, attribute, timed)
                replaced.append((loaded, attribute, original))
    return replaced


def one_build(base_data: Path) -> tuple[Timer, float]:
    """(the fits' timer, the build's CPU seconds) of one cold one-core build."""
    from ffsite.site.build import build_site

    timer = Timer()
    replaced = wrap_fits(timer)
    try:
        with tempfile.TemporaryDirectory() as folder:
            os.environ["FFSITE_CACHE_DIR"] = str(Path(folder) / "cache")
            started = time.process_time()
            build_site(REPO / "annotations", Path(folder) / "site",
                       content=REPO / "content", templates=REPO / "templates",
                       base_data=base_data)
            return timer, time.process_time() - started
    finally:
        for module, attribute, original in replaced:
            setattr(module, attribute, original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.cpu_count = lambda: 1  # no child computing ahead, no halves, one thread per pool
    import ffsite.site.build  # noqa: F401  (every module the build uses, before wrapping)

    runs = [one_build(args.base_data) for _ in range(args.runs)]
    descriptions = {attribute: what for _, attribute, what in FITS}
    print(f"{'CPU s':>7} {'calls':>6}  fit (median of {args.runs} cold one-core builds)")
    total = 0.0
    for attribute in descriptions:
        seconds = statistics.median(timer.seconds.get(attribute, 0.0) for timer, _ in runs)
        calls = runs[0][0].calls.get(attribute, 0)
        total += seconds
        print(f"{seconds:7.2f} {calls:6d}  {descriptions[attribute]}")
    build = statistics.median(cpu for _, cpu in runs)
    print(f"{total:7.2f}         every fit and resampling")
    print(f"{build:7.2f}         the whole build (one core, nothing forked)")
    print(f"{total / 2:7.2f}         the floor on two cores: the fits alone, perfectly shared")


if __name__ == "__main__":
    main()
