"""Comparable or apart: numbers made another way never join a dataset's own.

- `keep_apart` moves scores by a judge that is not a dataset's own to `<dataset>@<judges>`
  before any panel is pooled (a tested rule of ffsite.metrics.judges);
- a crafted contribution judged by another judge, filed under the datasets' own ids,
  changes no number of theirs (a regression test on the real data);
- a protocol run's summary is checked against its judges and settings: a file that
  claims to be comparable and is not is refused by `ffsite validate --site`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from annotate_helpers import api_env, run_cli
from chat_server import ChatServer
from protocol_fixture import Script

from ffsite.collect.protocol import compare
from ffsite.collect.protocol.setup import find_protocol
from ffsite.collect.protocol.spec import Judge
from ffsite.datasets import PANELS, RUBRIC_FLOORS, SCORE_JUDGES, UNITS, dataset_name
from ffsite.format import read_scores, write_scores
from ffsite.metrics.judges import keep_apart, pool_panels
from ffsite.metrics.results import score_results

REPO = Path(__file__).resolve().parents[1]
CRAFTED = "crafted-judge"


def scores_frame(rows: list[tuple]) -> pd.DataFrame:
    """(dataset, response, model, judge, trait, seed, score) -> a scores frame."""
    return pd.DataFrame([{
        "dataset": d, "response_id": r, "prompt_id": f"p-{r}", "model": m, "judge": j,
        "trait_id": t, "trait": f"{t}: 1 low; 10 high", "trait_set": "test",
        "scale_min": 1.0, "scale_max": 10.0, "seed": s, "score": v}
        for d, r, m, j, t, s, v in rows])


def test_scores_by_other_judges_move_apart_and_never_join_the_panel(tmp_path):
    path = tmp_path / "s.parquet"
    write_scores(scores_frame([
        ("llm_dreams", "old/0", "old", "gpt-5.5", "ld-x", 0, 4.0),
        ("llm_dreams", "old/0", "old", "grok-4.3", "ld-x", 0, 6.0),
        ("llm_dreams", "old/0", "old", CRAFTED, "ld-x", 0, 10.0),  # same answer set
        ("llm_dreams", "new/0", "new", CRAFTED, "ld-x", 0, 9.0),
        ("llm_dreams", "new/0", "new", "other", "ld-x", 0, 1.0),
        ("poem_eval", "p/0", "p", "openai/gpt-5.2", "pe-x", 0, 3.0),
        ("somewhere", "q/0", "q", "anyone", "x", 0, 2.0),  # no record: left alone
    ]), path)
    scores = read_scores([path])
    apart = keep_apart(scores, SCORE_JUDGES)
    long = apart.long().sort_values(["dataset", "model", "judge"]).reset_index(drop=True)
    assert list(zip(long["dataset"], long["model"], long["judge"], strict=True)) == [
        ("llm_dreams", "old", "gpt-5.5"), ("llm_dreams", "old", "grok-4.3"),
        (f"llm_dreams@{CRAFTED}", "old", CRAFTED),
        (f"llm_dreams@{CRAFTED}+other", "new", CRAFTED),
        (f"llm_dreams@{CRAFTED}+other", "new", "other"),
        ("poem_eval", "p", "openai/gpt-5.2"), ("somewhere", "q", "anyone")]
    assert apart.responses[["dataset", "response_id"]].duplicated().sum() == 0
    # The panel is the dataset's judges' alone: old's mean is (4 + 6) / 2, not with 10.
    pooled, members = pool_panels(apart, PANELS)
    panel = pooled.long()
    own = panel[(panel["dataset"] == "llm_dreams")]
    assert list(own["judge"]) == ["llm-dreams panel"] and list(own["score"]) == [5.0]
    assert CRAFTED not in set(members.long()["judge"])
    assert dataset_name(f"llm_dreams@{CRAFTED}") == f"llm-dreams (apart: {CRAFTED})"
    assert keep_apart(read_scores([REPO / "annotations" / "poem_eval"]), SCORE_JUDGES
                      ).responses.equals(read_scores([REPO / "annotations" / "poem_eval"]
                                                     ).responses)


def test_a_run_is_comparable_only_with_the_protocol_s_judges_and_settings():
    protocol = find_protocol("llm-dreams")
    same = compare.variant(protocol, protocol.judges, protocol.settings)
    assert same.comparable and compare.filed_under(protocol, same) == "llm_dreams"
    mapped = [Judge(j.name, f"host/{j.name}") for j in protocol.judges]
    assert compare.variant(protocol, mapped, protocol.settings).comparable
    fewer = compare.variant(protocol, protocol.judges[:3], protocol.settings)
    assert not fewer.comparable and fewer.differs == [
        "judges gpt-5.6-sol, gpt-5.6-terra, gpt-5.5"]
    warm = compare.variant(protocol, protocol.judges, {**protocol.settings,
                                                       "temperature": 0.7})
    assert warm.differs == ["temperature 0.7, not unset"]
    assert compare.filed_under(protocol, warm).endswith("[temperature 0.7, not unset]")


def crafted_files(folder: Path) -> list[Path]:
    """Hand-made files under the datasets' own ids by another judge: each scores a new
    model and re-scores existing answers of its dataset."""
    written = []
    for name, condition in (("llm_dreams", None), ("behavioral_profiling", "baseline")):
        real = read_scores([REPO / "annotations" / name]).long()
        if condition:
            real = real[real["condition"] == condition]
        picked = real[real["model"] == real["model"].iloc[0]].drop_duplicates(
            ["response_id", "trait_id"]).head(90)
        old = picked.assign(judge=CRAFTED, seed=0, score=1.0)
        new = picked.assign(judge=CRAFTED, seed=0, score=10.0, model="crafted/new",
                            response_id=picked["response_id"] + "-crafted")
        written.append(folder / f"{name}-crafted.parquet")
        write_scores(pd.concat([old, new], ignore_index=True), written[-1])
    return written


@pytest.mark.slow
def test_a_crafted_contribution_by_another_judge_changes_no_existing_number(tmp_path):
    """The regression test of issue 26: every table of the two datasets, the site's score
    results, is the same with the crafted file as without it; its numbers stand apart."""
    files = [REPO / "annotations" / "llm_dreams", REPO / "annotations" / "behavioral_profiling"]

    def results(paths):
        scores = keep_apart(read_scores(paths), SCORE_JUDGES)
        pooled, members = pool_panels(scores, PANELS)
        return score_results(pooled, members=members, n_bootstrap=50, floors=RUBRIC_FLOORS,
                             units=UNITS)

    before = results(files)
    after = results([*files, *crafted_files(tmp_path)])
    for table in ("means", "strengths", "shifts", "bend", "judge_means", "ratings"):
        old, new = getattr(before, table), getattr(after, table)
        own = new[new["dataset"].isin(["llm_dreams", "behavioral_profiling"])]
        pd.testing.assert_frame_equal(old.reset_index(drop=True),
                                      own.reset_index(drop=True), check_dtype=False)
    apart = after.means[~after.means["dataset"].isin(["llm_dreams",
                                                       "behavioral_profiling"])]
    assert set(apart["dataset"]) == {f"llm_dreams@{CRAFTED}",
                                     f"behavioral_profiling@{CRAFTED}"}
    assert set(apart["judge"]) == {CRAFTED}
    assert np.isin(apart.loc[apart["model"] == "crafted/new", "mean"], [10.0]).all()


def rewrite_summary(path: Path, **changes) -> None:
    table = pq.read_table(path)
    metadata = json.loads(table.schema.metadata[b"ffsite"])
    metadata["extra"].update(changes)
    table = table.replace_schema_metadata({**table.schema.metadata,
                                           b"ffsite": json.dumps(metadata).encode()})
    pq.write_table(table, path)


def test_validate_refuses_a_file_whose_summary_misstates_its_variant(tmp_path, shared_data):
    out = tmp_path / "out.parquet"
    with ChatServer(Script(shared_data)) as server:
        result = run_cli(["protocol", "run", "behavioral-profiling", "--model", "lab/x",
                          "--base-data", str(shared_data), "--cache-dir", str(tmp_path / "c"),
                          "--out", str(out), "--limit", "3", "--judge", "lab/other-judge"],
                         api_env(server.url))
        assert result.exit_code == 0, result.output
    site = tmp_path / "site"
    site.mkdir()
    (site / "bp.parquet").write_bytes((REPO / "annotations" / "behavioral_profiling"
                                       / "scores.parquet").read_bytes())
    good = run_cli(["validate", str(out), "--site", str(site)], {})
    assert good.exit_code == 0, good.output
    assert ("apart: judges lab/other-judge: shown as 'Behavioral Profiling (apart: "
            "lab/other-judge)', labelled, never ranked") in good.output
    rewrite_summary(out, comparable=True)
    bad = run_cli(["validate", str(out), "--site", str(site)], {})
    assert "says comparable=True but its judges and settings make it apart" in str(
        bad.exception)
    rewrite_summary(out, comparable=False, judges=list(find_protocol(
        "behavioral-profiling").judges[0].name for _ in range(1)))
    bad = run_cli(["validate", str(out), "--site", str(site)], {})
    assert bad.exit_code != 0
