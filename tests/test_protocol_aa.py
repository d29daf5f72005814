"""The AA-style panel protocol (`ffsite protocol run aa-personality`): ffsite's own
questions, the design (targets, the anchor oversampled, judges in balance), and runs end
to end against the local chat server: faults, votes turned back to the file's sides,
Bradley-Terry ratings and the eight indices, a later run adding one model to the rated
ones, a run kept apart, kill -9 and resume, and the dry run's prices.

The scripted judge prefers the answer of the model whose level on the trait is higher
(`aa_level`), so every vote and the order of every trait's ratings are known here."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from annotate_helpers import api_env, file_summary, run_cli, run_subprocess
from chat_server import ChatServer, Reply
from protocol_fixture import Script, aa_level

from ffsite.collect.api.cost import BUILT_IN_PRICES
from ffsite.collect.protocol.design import design
from ffsite.datasets.aa_personality import protocol as aa
from ffsite.format.read import read_annotations, vote_rows
from ffsite.traits import AA30, AA30_NAMES

ANCHOR = "openai/gpt-4o-mini"
JUDGES = ("google/gemini-2.5-flash", "openai/gpt-4.1-mini", "anthropic/claude-3.5-haiku")
PANEL = "AA-style panel: gemini-2.5-flash + gpt-4.1-mini + claude-3.5-haiku"
MODELS = ("lab/alpha", "lab/beta", "lab/gamma")


def args(tmp_path: Path, *extra: str, models=MODELS, out="out.parquet") -> list[str]:
    return ["protocol", "run", "aa-personality",
            *[a for m in models for a in ("--model", m)],
            "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / out),
            "--backoff", "0", *extra]


def no_population(tmp_path: Path) -> list[str]:
    empty = tmp_path / "none.json"
    empty.write_text("[]")
    return ["--population", str(empty)]


# --------------------------------------------------------------------- questions

def test_five_questions_or_more_for_each_of_the_30_traits():
    questions = aa.questions()
    per_trait = Counter(q.trait_id for q in questions)
    assert set(per_trait) == {t.id for t in AA30} and min(per_trait.values()) >= 5
    assert len({q.id for q in questions}) == len(questions)
    assert len({q.text for q in questions}) == len(questions)
    # AA-PersonalityBench's published examples are not among them (ours are our own).
    assert all("Tolstoy" not in q.text and "weirdest social norm" not in q.text
               for q in questions)


def test_the_judge_gets_one_trait_its_definition_the_question_and_two_answers():
    trait = next(t for t in AA30 if AA30_NAMES[t.id] == "Humorous")
    system, user = aa.messages(trait, "Why?", "first answer", "second answer")
    assert system["role"] == "system" and user["role"] == "user"
    text = user["content"]
    assert text.startswith("Trait: Humorous\nDefinition: an answer shows this trait when "
                           "it is funny or playful.")
    assert text.index("first answer") < text.index("second answer")
    assert "A, B, or tie" in text and "Humorous" in text and "Eloquent" not in text


# ------------------------------------------------------------------------ design

def by_trait(n: int = 5) -> dict[str, list[str]]:
    return {t.id: [f"{t.id}-q{k}" for k in range(n)] for t in AA30[:4]}


def test_targets_the_anchor_and_balanced_judges():
    found = design(by_trait(), ["m1", "m2", "m3"], [], "anchor", target=20,
                   anchor_share=0.4, judges=3, seed=0)
    for trait, questions in by_trait().items():
        mine = [c for c in found if c.trait == trait]
        count = Counter(m for c in mine for m in (c.first, c.second))
        assert all(20 <= count[m] <= 21 for m in ("m1", "m2", "m3")), count
        against = Counter(c.first for c in mine if c.second == "anchor")
        assert against == {"m1": 8, "m2": 8, "m3": 8}
        assert count["anchor"] == 24 and count["anchor"] > max(count[m] for m in
                                                                ("m1", "m2", "m3"))
        assert {c.question for c in mine} == set(questions)
        for model in count:  # each model's comparisons split evenly over the judges
            split = Counter(c.judge for c in mine if model in (c.first, c.second))
            assert len(split) == 3 and max(split.values()) - min(split.values()) <= 2, (
                model, split)
    assert len({c.id for c in found}) == len(found)
    assert found == design(by_trait(), ["m1", "m2", "m3"], [], "anchor", target=20,
                           anchor_share=0.4, judges=3, seed=0)
    other = design(by_trait(), ["m1", "m2", "m3"], [], "anchor", target=20,
                   anchor_share=0.4, judges=3, seed=1)
    assert [c.question for c in other] != [c.question for c in found]


@pytest.mark.parametrize("seed", range(6))
def test_every_model_s_judges_stay_within_two_whatever_the_seed(seed):
    for added, others in ((["m1", "m2", "m3"], []), (["new"], ["r1", "r2", "anchor"]),
                          (["a", "b", "c", "d", "e"], ["r"])):
        found = design(by_trait(), added, others, "anchor", target=20, anchor_share=0.4,
                       judges=3, seed=seed)
        for trait in by_trait():
            mine = [c for c in found if c.trait == trait]
            for model in {m for c in mine for m in (c.first, c.second)}:
                split = Counter(c.judge for c in mine if model in (c.first, c.second))
                counts = [split.get(j, 0) for j in range(3)]
                assert max(counts) - min(counts) <= 2, (seed, added, model, counts)


def test_a_model_added_later_meets_the_rated_ones_evenly():
    found = design(by_trait(), ["new"], ["r1", "r2", "r3", "anchor"], "anchor", target=10,
                   anchor_share=0.4, judges=3, seed=0)
    for trait in by_trait():
        mine = [c for c in found if c.trait == trait]
        assert len(mine) == 10 and all(c.first == "new" for c in mine)
        rivals = Counter(c.second for c in mine)
        assert rivals["anchor"] == 4 and sorted(rivals[r] for r in ("r1", "r2", "r3")) == [
            2, 2, 2]


# ---------------------------------------------------------------------- end to end

def humorous(text: str) -> bool:
    return "Trait: Humorous\n" in text


FAULTS = {("answer", "lab/alpha"): [Reply(status=429, headers={"Retry-After": "0"}),
                                    Reply(status=500), Reply(raw_body=b"{\"choices\": ")],
          ("aa-judge", JUDGES[0]): [Reply(delay=3.0)],  # past --timeout
          ("aa-judge", JUDGES[1]): [Reply("Both are fine, really.")]}  # re-asked once


def expected_vote(row: dict) -> str:
    trait = row["trait"].split("trait ", 1)[1].split(":", 1)[0]
    a, b = aa_level(row["model_a"], trait), aa_level(row["model_b"], trait)
    return "A" if a > b else "B" if b > a else "tie"


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_end_to_end_votes_ratings_and_indices(tmp_path, shared_data, monkeypatch, capsys):
    # The third judge never gives a readable verdict on Humorous: those comparisons are
    # asked again once, then invalid.
    script = Script(shared_data, faults=FAULTS)
    original = script.aa_judge
    script.aa_judge = lambda r: (Reply("Hmm.") if r.model == JUDGES[2] and humorous(
        r.user_text) else original(r))
    with ChatServer(script) as server:
        result = run_cli(args(tmp_path, "--timeout", "1", *no_population(tmp_path)),
                         api_env(server.url))
        assert result.exit_code == 0, result.output
        judged = [r for r in server.requests if script.kind(r) == "aa-judge"]
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["answer_calls"] == 4 * 150 and summary["judge_calls"] == 30 * 42
    humorous_third = sum(1 for r in judged if r.model == JUDGES[2] and humorous(
        r.user_text)) // 2  # each asked twice
    assert summary["reask_calls"] == 1 + humorous_third
    assert summary["invalid_votes"] == humorous_third and 10 <= humorous_third <= 18
    assert summary["judge"] == PANEL and summary["comparable"] is True
    assert summary["anchor"] == ANCHOR and summary["traits"] == 30
    assert summary["retries"] == 4

    rows = vote_rows(tmp_path / "out.parquet").to_pylist()
    assert len(rows) == 1260 and {r["judge"] for r in rows} == {PANEL}
    members = Counter(r["meta.judge"] for r in rows)
    assert set(members) == set(JUDGES) and max(members.values()) - min(members.values()) <= 3
    valid = [r for r in rows if r["vote"] != "invalid"]
    # Every vote on the file's sides: A when model_a's level is higher, whichever answer
    # the judge was shown first.
    assert all(r["vote"] == expected_vote(r) for r in valid)
    assert {r["vote"] for r in valid} == {"A", "B", "tie"}
    assert Counter(r["model_a"] == r["model_b"] for r in rows) == {False: 1260}
    answers = json.loads((tmp_path / "out.responses.json").read_text("utf-8"))
    assert len(answers) == 600 and {a["model"] for a in answers} == {*MODELS, ANCHOR}

    # Bradley-Terry with Firth, anchored: on every trait the levels' order.
    from helpers import run_main
    status, out, err = run_main(monkeypatch, capsys, "ratings", str(tmp_path / "out.parquet"),
                                "--anchor", ANCHOR, "--bootstrap", "20", "--format", "json")
    assert status == 0, err
    ratings = pd.DataFrame(json.loads(out))
    assert ratings["trait_id"].nunique() == 30
    assert (ratings.loc[ratings["model"] == ANCHOR, "elo"] == 1000).all()
    for trait_id, own in ratings.groupby("trait_id"):
        level = {m: aa_level(m, AA30_NAMES[trait_id]) for m in own["model"]}
        elo = dict(zip(own["model"], own["elo"], strict=True))
        for a in level:
            for b in level:
                if level[a] > level[b]:
                    assert elo[a] > elo[b], (trait_id, a, b)
    status, out, err = run_main(monkeypatch, capsys, "ratings", str(tmp_path / "out.parquet"),
                                "--anchor", ANCHOR, "--bootstrap", "20", "--indices",
                                "--format", "json")
    assert status == 0, err
    indices = pd.DataFrame(json.loads(out))
    assert set(indices["index"]) == {"Expressiveness", "Organization", "Informativeness",
                                     "Transparency", "Warmth", "Conviction", "Imagination",
                                     "Slop"}
    assert len(indices) == 8 * 4 and indices["score"].between(1, 100).all()

    # A site with none of it yet: the run founds the dataset.
    site = tmp_path / "site"
    from site_fixture import write_tiny
    write_tiny(site)
    result = run_cli(["validate", str(tmp_path / "out.parquet"), "--site", str(site)], {})
    assert result.exit_code == 0, result.output
    assert "comparable: same protocol (aa-personality aa-panel-1)" in result.output


@pytest.mark.slow  # > 2.4 s: a real build, fit or watcher (CI runs it)
def test_a_later_run_adds_one_model_to_the_rated_ones(tmp_path, shared_data):
    first = ["--comparisons", "6", *no_population(tmp_path)]
    with ChatServer(Script(shared_data)) as server:
        assert run_cli(args(tmp_path, *first, models=MODELS[:2]),
                       api_env(server.url)).exit_code == 0
        before = len(server.requests)
        added = run_cli(args(tmp_path, "--comparisons", "6", "--population",
                             str(tmp_path / "out.responses.json"), models=("lab/delta",),
                             out="delta.parquet"), api_env(server.url))
        assert added.exit_code == 0, added.output
        asked = server.requests[before:]
    # Only the new model answers; each of its comparisons involves it.
    assert {r.model for r in asked if not r.is_judge} == {"lab/delta"}
    rows = vote_rows(tmp_path / "delta.parquet").to_pylist()
    assert len(rows) == 30 * 6 and all("lab/delta" in (r["model_a"], r["model_b"])
                                       for r in rows)
    rivals = Counter(r["model_b"] if r["model_a"] == "lab/delta" else r["model_a"]
                     for r in rows)
    assert rivals == {ANCHOR: 30 * 2, MODELS[0]: 30 * 2, MODELS[1]: 30 * 2}
    summary = file_summary(tmp_path / "delta.parquet")
    assert summary["population"] == sorted([*MODELS[:2], ANCHOR])
    site = tmp_path / "site"
    site.mkdir()
    (site / "first.parquet").write_bytes((tmp_path / "out.parquet").read_bytes())
    result = run_cli(["validate", str(tmp_path / "delta.parquet"), "--site", str(site)], {})
    assert result.exit_code == 0, result.output
    assert "ranked with its 3 models and marked 'contributed'" in result.output
    together = read_annotations([tmp_path / "out.parquet", tmp_path / "delta.parquet"])
    assert len(together.models) == 4


def test_another_panel_is_kept_apart_under_its_own_traits(tmp_path, shared_data):
    with ChatServer(Script(shared_data)) as server:
        result = run_cli(args(tmp_path, "--comparisons", "4", "--judge", JUDGES[0],
                              *no_population(tmp_path), models=MODELS[:1]),
                         api_env(server.url))
        assert result.exit_code == 0, result.output
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["comparable"] is False and summary["judge"] == JUDGES[0]
    rows = vote_rows(tmp_path / "out.parquet").to_pylist()
    assert all(r["trait_id"].endswith("@" + JUDGES[0]) for r in rows)
    assert all(r["trait"].endswith(f"[judged by {JUDGES[0]}]") for r in rows)
    assert {r["meta.judge"] for r in rows} == {JUDGES[0]}
    site = tmp_path / "site"
    from site_fixture import write_tiny
    write_tiny(site)
    result = run_cli(["validate", str(tmp_path / "out.parquet"), "--site", str(site)], {})
    assert result.exit_code == 0, result.output
    assert ("apart: judges google/gemini-2.5-flash: shown as '<trait> [judged by "
            "google/gemini-2.5-flash]', labelled, never ranked") in result.output


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_kill_and_resume_pays_no_call_twice_and_gives_the_same_bytes(tmp_path, shared_data):
    command = args(tmp_path, "--comparisons", "2", "--concurrency", "4",
                   *no_population(tmp_path), models=MODELS[:1])
    with ChatServer(Script(shared_data), latency=0.05) as server:
        env = api_env(server.url)
        killed = run_subprocess(command, env)
        deadline = time.monotonic() + 60
        while len(server.answered) < 120 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        server.settle()  # (requests the killed run sent are all counted)
        cached = len(list((tmp_path / "cache").rglob("*.json")))
        before = len(server.requests)
        resumed = run_subprocess(command, env)
        stdout, stderr = resumed.communicate(timeout=180)
        assert resumed.returncode == 0, stderr
        again = len(server.requests) - before
        fresh = [*command]
        fresh[fresh.index("--cache-dir") + 1] = str(tmp_path / "fresh-cache")
        fresh[fresh.index("--out") + 1] = str(tmp_path / "fresh.parquet")
        assert run_subprocess(fresh, env).wait(timeout=180) == 0
    total = 300 + 60
    assert 100 <= cached < total and again == total - cached
    assert f"({again} new, {cached} from cache" in stdout
    assert (tmp_path / "out.parquet").read_bytes() == (tmp_path / "fresh.parquet").read_bytes()
    assert (tmp_path / "out.responses.json").read_bytes() == (
        tmp_path / "fresh.responses.json").read_bytes()


def test_dry_run_prices_from_the_built_in_table(tmp_path):
    model = "openai/gpt-4.1-nano"
    with ChatServer() as server:
        result = run_cli(args(tmp_path, "--dry-run", "--max-cost", "1",
                              *no_population(tmp_path), models=(model,)),
                         api_env(server.url))
        assert result.exit_code == 0, result.output
        assert server.requests == []
    lines = result.output.splitlines()
    assert lines[1].startswith(f"answers: 150 calls to {model}")
    assert lines[2].startswith(f"answers: 150 calls to {ANCHOR}")
    judges = [line for line in lines if line.startswith("judge ")]
    assert [line.split(" calls to ")[1].split(" ")[0] for line in judges] == list(JUDGES)
    assert sum(int(line.split(": ")[1].split(" ")[0]) for line in judges) == 30 * 20
    for line in lines[1:6]:
        name = line.split(" calls to ")[1].split(" ")[0]
        price = BUILT_IN_PRICES[name]
        tokens_in = int(re.search(r"~(\d+) tokens in", line).group(1))
        tokens_out = int(re.search(r"~(\d+) out", line).group(1))
        cost = float(re.search(r"~\$([\d.]+)", line).group(1))
        assert cost == pytest.approx(price.cost(tokens_in, tokens_out), abs=1e-4)
    assert lines[-1] == "dry run: nothing was sent"


def test_the_budget_stops_the_run_cleanly_and_a_rerun_finishes_it(tmp_path, shared_data):
    # The whole run costs ~$0.016 at the built-in prices (the server's answers are short).
    command = args(tmp_path, "--comparisons", "4", *no_population(tmp_path),
                   models=("openai/gpt-4.1-nano",))
    with ChatServer(Script(shared_data)) as server:
        stopped = run_cli([*command, "--max-cost", "0.01"], api_env(server.url))
        assert stopped.exit_code == 0, stopped.output
        assert "stopped at the budget: --max-cost 0.01" in stopped.output
        summary = file_summary(tmp_path / "out.parquet")
        assert summary["complete"] is False and summary["cost_usd"] <= 0.01
        assert 0 < summary["judge_calls"] < 120 and summary["votes"] < 120
        made = len(server.requests)
        finished = run_cli(command, api_env(server.url))
        assert finished.exit_code == 0, finished.output
        assert len(server.requests) == made + 420 - summary["calls"]
    done = file_summary(tmp_path / "out.parquet")
    assert done["complete"] is True and done["votes"] == 120
