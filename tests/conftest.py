"""Shared fixtures.  Tests that need ../shared fail loudly in CI when it is missing."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Bytecode is cached even where the environment says not to (PYTHONDONTWRITEBYTECODE, set
# on some CI images): without it pytest rewrites every test module's asserts again at
# each collection (8 of 13 s here, in each worker) and every `python -m ffsite` a test
# starts compiles ffsite again (0.3 s each, about 150 of them).  The caches go to
# __pycache__ folders, which git ignores.  (Set here, before the workers start and
# before the test modules are imported.)
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# Every cache (chart bundle, checked votes, annotate calls) goes to a folder of this test
# session, inherited by the commands tests run: tests never see a user's cache or leave
# entries in it.  Each process that makes one (the session, each pytest-xdist worker)
# removes it as it ends: 16-28 MB a run were left in the temporary folder.
_CACHE = tempfile.mkdtemp(prefix="ffsite-test-cache-")
os.environ["FFSITE_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (pyproject.toml): two workers a core.  A worker often waits (on Chromium,
    on a command it started, on a local server) while the core could run another test;
    on a 2-core machine the suite took 400-419 s with two workers, 327-380 s with four (and 18
    core-seconds idle against 59: docs/performance.md).
    $PYTEST_XDIST_AUTO_NUM_WORKERS still decides when set."""
    return 2 * len(os.sched_getaffinity(0))


def shared_path() -> Path:
    return Path(os.environ.get("FFSITE_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared (the read-only data beside the checkout)."""
    path = shared_path()
    if not (path / "data").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{path}/data is missing; CI must provide ../shared beside the checkout")
        pytest.skip(f"{path}/data not available")
    return path


@pytest.fixture(scope="session")
def shared_data(shared_dir: Path) -> Path:
    """../shared/data, laid out as FFSITE_BASE_DATA expects."""
    return shared_dir / "data"


# ------------------------------------------------------------------ marks and order
# `pytest -m "not slow and not browser"` is the inner loop (CONTRIBUTING.md, "Running the
# tests"); CI runs everything.  A test is marked
# - browser: it uses the chromium fixture (directly or through another fixture);
# - slow: it uses default_site (the default site built from ../shared/data), its module
#   says so (`pytestmark = pytest.mark.slow`, `@pytest.mark.slow`), or it is listed in
#   SLOW below: tests of about 5 s or more (kill -9 and resume, runs in fresh processes)
#   in files whose code is being moved (ffsite/annotate -> ffsite/collect), which cannot
#   carry a mark of their own until the move is done.
SLOW = {
    "test_eigenbench_run.py": {"test_kill_and_resume_pays_no_answered_call_twice",
                               "test_run_with_faults_then_fit_and_page",
                               "test_rerun_makes_no_calls_and_writes_the_same_bytes"},
    "test_annotate_resume.py": {"test_kill_and_resume"},
    "test_lmlpa_run.py": {"test_kill_and_resume_pays_no_call_twice_and_gives_the_same_bytes"},
}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "chromium" in fixtures:
            item.add_marker(pytest.mark.browser)
        name = getattr(item, "originalname", item.name)
        if "default_site" in fixtures or name in SLOW.get(item.path.name, ()):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("xdist_group"):
            pass  # its module says where it runs (test_browser_layout.py)
        elif {"default_phone_loads", "default_phone_visit"} & set(fixtures):
            # One visit of the default site's pages serves all of these: with
            # pytest-xdist (--dist loadgroup) they run in one worker, which makes it once.
            item.add_marker(pytest.mark.xdist_group(PHONE_VISIT))
        elif "tiny_visits" in fixtures:
            item.add_marker(pytest.mark.xdist_group("tiny-visit"))
        elif _uses_a_module_fixture(item):
            # A module's own fixture is made once per worker that runs one of its tests:
            # its tests run in one worker, which makes it once (a site built by protocol
            # runs, a simulation study: 15-45 s each).
            item.add_marker(pytest.mark.xdist_group(item.path.name))
    # One Chromium for the whole session.  Playwright's sync API marks the thread's
    # asyncio loop as running while it is alive, so tests that use the browser run after
    # all others (asyncio.run in a later test would fail otherwise).
    items.sort(key=lambda item: "chromium" in getattr(item, "fixturenames", ()))


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(
        definitions[-1].scope == "module" for definitions in info.name2fixturedefs.values())


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium, headless, shared by every browser test."""
    from browser import launch
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def tiny_site(tmp_path_factory) -> Path:
    """The tiny fixture site (site_fixture.py), with texts, built once per session."""
    from site_fixture import build_tiny

    return build_tiny(tmp_path_factory.mktemp("tiny-site"))


@pytest.fixture(scope="session")
def tiny_root(tiny_site: Path):
    """The tiny site served like GitHub Pages under /ffsite/; yields its URL."""
    from browser import PagesServer

    server = PagesServer(tiny_site)
    yield server.root
    server.close()


@pytest.fixture(scope="session")
def tiny_visits(chromium, tiny_site: Path, tiny_root: str) -> dict:
    """{scheme: {page: PageVisit}}: every page of the tiny site, opened once per scheme."""
    from browser import SCHEMES, visit_pages

    return {scheme: visit_pages(chromium, tiny_site, tiny_root, scheme) for scheme in SCHEMES}


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory) -> Path:
    """A site built from hostile_fixture.py's attacks, built once per session."""
    from hostile_fixture import build_hostile

    return build_hostile(tmp_path_factory.mktemp("hostile"))


def shared_once(tmp_path_factory, name: str, make) -> Path:
    """A folder `make(folder)` fills once for the whole run: with pytest-xdist the first
    worker to need it makes it (the others wait for its lock), so a site is built once,
    not once per worker.  Tests only read it."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    folder, done = base / name, base / f"{name}.done"
    with (base / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.write_text("made\n", "utf-8")
    return folder


@pytest.fixture(scope="session")
def default_site(tmp_path_factory, shared_data: Path) -> Path:
    """The repository's default site (annotations/, content/, templates/) with the base
    data in ../shared/data, built once per run.  Its ratings use 200 bootstrap
    resamples, not the published 1,000: tests check layout and numbers that do not
    depend on the resamples, in a fifth of the time."""
    from ffsite.site.build import build_site

    def make(root: Path) -> None:
        content = root / "content"
        shutil.copytree(REPO / "content", content)
        with (content / "site.toml").open("a", encoding="utf-8") as settings:
            settings.write("\nrating_resamples = 200\n")
        build_site(REPO / "annotations", root / "site", content=content,
                   templates=REPO / "templates", base_data=shared_data)

    return shared_once(tmp_path_factory, "default-site", make) / "site"


PHONE_VISIT = "default-phone-visit"  # the xdist group of the tests that read that visit


@pytest.fixture
def default_phone_loads(request, default_phone_visit):
    """default_phone_visit, for a test in the worker that makes it: with pytest-xdist a
    test elsewhere would make the whole visit again (a test that asks for it at run
    time, which conftest cannot see, names the group itself)."""
    group = request.node.get_closest_marker("xdist_group")
    if group is None or (group.args or [group.kwargs.get("name")])[0] != PHONE_VISIT:
        pytest.fail(f"{request.node.nodeid} uses default_phone_loads: mark it "
                    f'pytest.mark.xdist_group("{PHONE_VISIT}")')
    return default_phone_visit


@pytest.fixture(scope="session")
def default_phone_visit(chromium, default_site: Path, default_root: str):
    """({page: Load}, problems): every page of the default site opened once as a first
    visit on a phone (390 x 900 px, light; browser cache off, measured once the network is
    quiet: browser.first_loads), each Load with browser.PHONE_VISIT_CHECKS and the
    problems seen in its tab, and the problems the browser context saw in all.  The page
    budgets and re-flow of test_browser_weight, the phone layout of test_browser_layout
    and the first screen of test_browser_first_screen measure this one visit of the
    site's 470-odd pages rather than one each."""
    from browser import PHONE_VISIT_CHECKS, Watch, first_loads, site_pages

    context = chromium.new_context(viewport={"width": 390, "height": 900},
                                   color_scheme="light")
    watch = Watch(default_root).attach(context)
    try:
        pages = site_pages(default_site)
        by_url = first_loads(context, [default_root + path for path in pages],
                             checks=PHONE_VISIT_CHECKS, root=default_root)
        problems = watch.take()
    finally:
        context.close()
    return {path: by_url[default_root + path] for path in pages}, problems


@pytest.fixture(scope="session")
def default_root(default_site: Path):
    """The default site served like GitHub Pages under /ffsite/; yields its URL."""
    from browser import PagesServer

    server = PagesServer(default_site)
    yield server.root
    server.close()
