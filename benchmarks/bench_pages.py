"""What a reader's browser fetches and sees on each page of a built site.

    python benchmarks/bench_pages.py [--site DIR ...] [--base-data DIR] [--only GLOB]

Serves each site on 127.0.0.1 (under /ffsite/, as GitHub Pages serves a project site),
opens every page in headless Chromium (as the browser tests do: tests/browser.py)
at 390 px and 1440 px with the browser's cache off, and records the bytes of every
response on first load (HTML, CSS, scripts, images: uncompressed, as the test server
sends them), whether the chart library was fetched, the page's height and how far it
overflows the window sideways.  Prints a table per site, then the max and median.

Without --site, builds the repository's default site first (annotations/, content/,
templates/; base data from --base-data or $FFSITE_BASE_DATA) into a temporary folder.
Give --site twice (e.g. a site built from main, then one from a branch) to compare them
in one run, on one machine state.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the browser tests' server and measurements

from browser import PagesServer, first_loads, launch, site_pages  # noqa: E402

WIDTHS = (390, 1440)


def build_default(out: Path, base_data: str | None) -> Path:
    from ffsite.site.build import build_site

    started = time.perf_counter()
    build_site(REPO / "annotations", out, content=REPO / "content",
               templates=REPO / "templates", base_data=base_data)
    print(f"built the default site in {time.perf_counter() - started:.1f} s", flush=True)
    return out


def measure_site(browser, site: Path, only: str) -> dict[str, dict[int, object]]:
    """{page: {width: Load}} for every page of `site` matching `only`."""
    server = PagesServer(site)
    results: dict[str, dict[int, object]] = {}
    try:
        pages = [p for p in site_pages(site) if fnmatch.fnmatch(p, only)]
        for width in WIDTHS:
            context = browser.new_context(viewport={"width": width, "height": 900})
            loads = first_loads(context, [server.root + path for path in pages])
            for path in pages:
                results.setdefault(path, {})[width] = loads[server.root + path]
            context.close()
    finally:
        server.close()
    return results


def report(name: str, results: dict[str, dict[int, object]]) -> None:
    print(f"\n{name}")
    print(f"{'page':<44} {'KB@390':>8} {'KB@1440':>8} {'lib':>4} {'h@390':>7} "
          f"{'h@1440':>7} {'ovf@390':>7} {'ovf@1440':>8}")
    for path, loads in results.items():
        narrow, wide = loads[390], loads[1440]
        library = "yes" if any("/assets/vega-" in url for url in narrow.requests) else ""
        print(f"{path:<44} {narrow.bytes / 1000:>8.1f} {wide.bytes / 1000:>8.1f} "
              f"{library:>4} {narrow.height:>7} {wide.height:>7} {narrow.overflow:>7} "
              f"{wide.overflow:>8}")
    sizes = [loads[390].bytes for loads in results.values()]
    heights = [loads[390].height for loads in results.values()]
    home = results.get("index.html", {}).get(390)
    fetching = sum(1 for r in results.values()
                   if any("/assets/vega-" in url for url in r[390].requests))
    print(f"pages {len(sizes)}; first load KB: max {max(sizes) / 1000:.1f}, median "
          f"{statistics.median(sizes) / 1000:.1f}"
          + (f", home {home.bytes / 1000:.1f}" if home else "")
          + f"; height at 390 px: max {max(heights)}, median {statistics.median(heights):.0f}; "
          f"pages overflowing sideways: "
          f"{sum(1 for r in results.values() if r[390].overflow or r[1440].overflow)}; "
          f"pages fetching the chart library: {fetching}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", action="append", type=Path, default=[],
                        help="a built site (repeat to compare); default: build one")
    parser.add_argument("--base-data", default=os.environ.get("FFSITE_BASE_DATA"))
    parser.add_argument("--only", default="*", help="pages matching this glob")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-pages-") as scratch:
        sites = args.site or [build_default(Path(scratch) / "site", args.base_data)]
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                for site in sites:
                    report(str(site), measure_site(browser, site, args.only))
            finally:
                browser.close()


if __name__ == "__main__":
    main()
