"""Contributions on the site: a build with Behavioral Profiling's and llm-dreams'
published scores (a few models of each), the tiny votes set, and contributions made
through the protocols against the local chat server: comparable ones (Behavioral
Profiling, llm-dreams, the AA-style panel) show in their dataset's tables marked
"contributed" with their run; an llm-dreams run with another judge and a hand-made file
by another judge show apart, labelled, in no table of the dataset's own."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from annotate_helpers import api_env, run_cli
from chat_server import ChatServer
from protocol_fixture import Script
from site_fixture import REPO, write_content, write_tiny

from ffsite.datasets import find
from ffsite.format import read_scores, write_scores

pytestmark = pytest.mark.slow

BP_MODEL, DREAMER, APART, CRAFTED_MODEL = ("lab/profiled-1", "lab/dreamer-1",
                                           "lab/dreamer-other", "crafted/new")
BP_APART = "lab/profiled-other"
AA_MODELS = ("lab/alpha", "lab/beta")


def subset(name: str, folder: Path, models: int) -> None:
    """A few models of a dataset's published scores, as a file of the site's."""
    long = read_scores([REPO / "annotations" / name]).long()
    judges = {model for _, model in find(name).judge_models}  # their self-rating gaps
    kept = set(sorted(long["model"].unique())[:models]) | judges
    long = long[long["model"].isin(kept)]
    folder.mkdir(parents=True, exist_ok=True)
    write_scores(long.drop(columns=[c for c in long.columns if c.startswith("meta.")
                                    and long[c].isna().all()]), folder / "scores.parquet")


def run(args: list[str], url: str) -> None:
    result = run_cli(args, api_env(url))
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def built(tmp_path_factory, shared_data: Path) -> Path:
    root = tmp_path_factory.mktemp("protocol-site")
    annotations = root / "annotations"
    write_tiny(annotations / "tiny")
    subset("behavioral_profiling", annotations / "behavioral_profiling", 6)
    subset("llm_dreams", annotations / "llm_dreams", 4)
    contrib = annotations / "contrib"
    common = ["--base-data", str(shared_data), "--cache-dir", str(root / "cache"),
              "--backoff", "0"]
    with ChatServer(Script(shared_data)) as server:
        run(["protocol", "run", "behavioral-profiling", "--model", BP_MODEL, *common,
             "--out", str(contrib / "bp" / "profiled.parquet")], server.url)
        run(["protocol", "run", "behavioral-profiling", "--model", BP_APART, "--judge",
             "lab/judge-y", "--limit", "10", *common,
             "--out", str(contrib / "bp" / "other.parquet")], server.url)
        run(["protocol", "run", "llm-dreams", "--model", DREAMER, *common,
             "--out", str(contrib / "ld" / "dreamer.parquet")], server.url)
        run(["protocol", "run", "llm-dreams", "--model", APART, "--judge", "lab/judge-x",
             *common, "--out", str(contrib / "ld" / "other.parquet")], server.url)
        empty = root / "none.json"
        empty.write_text("[]")
        run(["protocol", "run", "aa-personality", *[a for m in AA_MODELS for a in
                                                     ("--model", m)],
             "--comparisons", "4", "--population", str(empty), *common,
             "--out", str(contrib / "aa" / "first.parquet")], server.url)
    # A hand-made file filed under llm-dreams' own id by another judge.
    dreamt = read_scores([contrib / "ld" / "dreamer.parquet"]).long()
    write_scores(dreamt.assign(judge="crafted-judge", model=CRAFTED_MODEL,
                               response_id=dreamt["response_id"].str.replace(
                                   DREAMER, CRAFTED_MODEL)).drop_duplicates(
        ["response_id", "trait_id", "seed"]), contrib / "crafted.parquet")
    content = write_content(root / "content", rating_resamples=20, eigenbench_resamples=20)
    shutil.copy(REPO / "content" / "models.toml", content / "models.toml")
    from ffsite.site.build import build_site

    build_site(annotations, root / "site", content=content, templates=REPO / "templates")
    return root


def text(path: Path) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ",
                                                   path.read_text("utf-8"))))


def model_page(site: Path, model: str) -> Path:
    found = [p for p in (site / "models").glob("*.html")
             if f"<h1>{model}" in p.read_text("utf-8") or
             re.search(rf"<title>{re.escape(model)}\b", p.read_text("utf-8"))]
    assert len(found) == 1, (model, found)
    return found[0]


def test_validate_says_which_case_applies(built):
    annotations = built / "annotations"
    lines = {}
    for path in sorted((annotations / "contrib").rglob("*.parquet")):
        if path.name == "crafted.parquet" or ".communication." in path.name:
            continue
        result = run_cli(["validate", str(path), "--site", str(annotations)], {})
        assert result.exit_code == 0, (path, result.output)
        lines[str(path.relative_to(annotations / "contrib").with_suffix(""))] = result.output
    assert "comparable: same protocol (behavioral-profiling" in lines["bp/profiled"]
    assert "ranked with its 9 models" in lines["bp/profiled"]  # 6 and its 3 judges
    assert "comparable: same protocol (llm-dreams" in lines["ld/dreamer"]
    assert "apart: judges lab/judge-y: shown as 'Behavioral Profiling (apart: " \
        "lab/judge-y)'" in lines["bp/other"]
    assert "apart: judges lab/judge-x: shown as 'llm-dreams (apart: lab/judge-x)'" in (
        lines["ld/other"])
    assert "comparable: same protocol (aa-personality" in lines["aa/first"]


def test_the_contributed_model_is_in_its_dataset_s_tables_marked_contributed(built):
    site = built / "site"
    home = (site / "index.html").read_text("utf-8")
    # Behavioral Profiling's table on the home page: the model, with its mark and run.
    row = re.search(rf'<tr[^>]*>(?:(?!</tr>).)*?>{re.escape(BP_MODEL)}<(?:(?!</tr>).)*</tr>',
                    home, re.DOTALL)
    assert row and '<span class="badge" title="added by a contributor through ffsite ' \
        'protocol behavioral-profiling (run of ' in row.group(0)
    assert ">contributed</span>" in row.group(0)
    page = text(model_page(site, BP_MODEL))
    assert re.search(r"Contributed: added through ffsite protocol run behavioral-profiling, "
                     r"made the dataset's way \(same protocol and judges\): ranked with its "
                     r"models; run of \d{4}-\d\d-\d\d, 200 API calls, 0\.0% invalid", page)
    dreamer = text(model_page(site, DREAMER))
    assert "Judged personality (llm-dreams)" in dreamer
    assert "Contributed: added through ffsite protocol run llm-dreams" in dreamer
    # The AA-style panel: its own dataset, the models ranked among themselves.
    alpha = text(model_page(site, AA_MODELS[0]))
    assert "AA-style panel" in alpha and "Contributed: added through ffsite protocol " \
        "run aa-personality" in alpha


def test_numbers_made_another_way_are_apart_and_labelled(built):
    site = built / "site"
    other = text(model_page(site, APART))
    assert "Judged personality (llm-dreams (apart: lab/judge-x))" in other
    assert "made another way (judges lab/judge-x): shown apart, never ranked against the " \
           "dataset's own models" in other
    crafted = text(model_page(site, CRAFTED_MODEL))
    assert "llm-dreams (apart: crafted-judge)" in crafted
    # In llm-dreams' own tables (its trait pages, the home page): neither of them; each
    # has a block of its own on the trait pages, headed by how it was made.
    seen = 0
    for page in (site / "traits").glob("*.html"):
        blocks = re.split(r'(?=<h2 id="block\d+")', page.read_text("utf-8"))[1:]
        heads = {re.match(r'<h2[^>]*>([^<]*)</h2>', b).group(1): b for b in blocks}
        own = heads.get("llm_dreams: llm-dreams panel")
        if own is None:
            continue
        seen += 1
        assert DREAMER in own and APART not in own and CRAFTED_MODEL not in own, page
        assert APART in heads["llm_dreams@lab/judge-x: lab/judge-x"]
        assert CRAFTED_MODEL in heads["llm_dreams@crafted-judge: crafted-judge"]
    assert seen == 15
    home = (site / "index.html").read_text("utf-8")
    lead = home[home.index('id="judged-heading"'):home.index('id="llm-dreams-heading"')]
    assert BP_MODEL in lead and BP_APART not in lead  # Behavioral Profiling's own table
    bp_other = text(model_page(site, BP_APART))
    assert "Judged personality (Behavioral Profiling (apart: lab/judge-y))" in bp_other
    glances = home[home.index('id="llm-dreams-glances"'):home.index('id="text-heading"')]
    assert APART not in glances and CRAFTED_MODEL not in glances
    assert "crafted-judge" not in home and "lab/judge-x" not in home
