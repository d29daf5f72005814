"""The judge seam (`ffsite.judges.judge`): the rules judge and the LLM judge behind one
interface, and the code that runs any judge (annotate, whole datasets) through it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from tiny_base import OUTPUTS, write_alpaca_eval

from ffsite.collect.annotate.llm_judge import LlmJudge
from ffsite.collect.annotate.prompt import TEMPLATE_VERSION, shown_swapped
from ffsite.collect.api import call_key
from ffsite.commands.annotate import make_judge
from ffsite.datasets.alpaca_eval.importer import import_alpaca_eval
from ffsite.datasets.alpaca_eval.reader import prompt_id, response_id
from ffsite.errors import FfsiteError
from ffsite.format.read import read_annotations
from ffsite.format.write import write_votes
from ffsite.judges.apply import annotate_dataset
from ffsite.judges.judge import Pairs, Reply, Votes
from ffsite.judges.rules import (
    RULE_TRAITS,
    RULES_VERSION,
    RulesJudge,
    judge_pairs,
    response_features,
)
from ffsite.traits import AA30, FF_V1

LONG = "A long answer with many words, far more than the other one has. " * 4


def pairs(n: int = 3) -> Pairs:
    return Pairs(np.array([f"c{i}" for i in range(n)], object),
                 np.array([f"Question {i}?" for i in range(n)], object),
                 np.array([LONG] * n, object), np.array(["Short."] * n, object),
                 labels={"model": "m", "reference": "r"})


def test_rules_judge_votes_like_the_rules():
    texts_a = [LONG, "Short.", "1. one\n2. two\n3. three", LONG]
    texts_b = ["Short.", LONG, "one, two, three", LONG]  # a repeated text is measured once
    judge = RulesJudge(seed=4)
    votes = judge.votes(Pairs(np.array(["a", "b", "c", "d"], object),
                              np.array(["q"] * 4, object), np.array(texts_a, object),
                              np.array(texts_b, object)), [])
    expected = judge_pairs(response_features(texts_a), response_features(texts_b))
    assert votes.votes.tolist() == expected[[t.id for t in RULE_TRAITS]].to_numpy().tolist()
    assert votes.rows.tolist() == [0, 1, 2, 3] and votes.seeds.tolist() == [4] * 4
    assert (votes.notes == None).all()  # noqa: E711 (element-wise)
    assert judge.id == judge.version == RULES_VERSION and judge.traits == RULE_TRAITS
    assert judge.api_models == () and judge.requests(pairs()) == [] and judge.seeds == (4,)
    empty = judge.votes(Pairs(*(np.array([], object),) * 4), [])
    assert empty.votes.shape == (0, len(RULE_TRAITS))


def test_llm_judge_requests_keep_the_cache_key():
    """A judge call's key has the fields the first `ffsite annotate` used, so a run of
    today's code finds the answers of a run of that one."""
    judge = LlmJudge("j", AA30, n_votes=2, seed=5, temperature=0.3, max_tokens=99)
    requests = judge.requests(pairs(2))
    assert len(requests) == 4  # comparison by comparison, seed by seed
    for request, (row, seed) in zip(requests, [(0, 5), (0, 6), (1, 5), (1, 6)], strict=True):
        flipped = shown_swapped(f"c{row}", seed)
        first, second = ("Short.", LONG) if flipped else (LONG, "Short.")
        rules = [t.wording for t in AA30]
        assert request.key == call_key(
            kind="judge", model="m", reference="r", judge="j", template=TEMPLATE_VERSION,
            prompt=f"Question {row}?", first=first, second=second, traits=rules, seed=seed,
            order=flipped, temperature=0.3, max_tokens=99)
        assert request.body["seed"] == seed and request.body["model"] == "j"
        assert f"<sample_a>\n{first}\n</sample_a>" in request.body["messages"][1]["content"]
    assert judge.api_models == ("j",) and judge.id == "j" and judge.seeds == (5, 6)


def test_llm_judge_votes_on_the_files_sides():
    judge = LlmJudge("j", FF_V1[:2], n_votes=2)
    batch = pairs(2)
    every_a = '{"1": "A", "2": "A"}'
    replies = [Reply(text=every_a), Reply(failure="HTTP 400: no"),
               Reply(text="no idea", finish_reason="length"), Reply()]  # the last never sent
    votes = judge.votes(batch, replies)
    assert votes.rows.tolist() == [0, 0, 1] and votes.seeds.tolist() == [0, 1, 0]
    on_a = "B" if shown_swapped("c0", 0) else "A"  # the judge saw the samples swapped
    assert votes.votes[0].tolist() == [on_a, on_a] and votes.notes[0].tolist() == [None, None]
    assert votes.votes[1].tolist() == ["invalid"] * 2
    assert votes.notes[1].tolist() == ["judge call failed: HTTP 400: no"] * 2
    assert votes.notes[2][0].endswith("(answer cut off at --judge-max-tokens)")


def test_make_judge_is_the_one_place_that_names_the_rules():
    assert make_judge("rules", seed=3) == RulesJudge(3)
    judge = make_judge("google/gemini-2.5-flash", traits="aa30", votes=3, seed=1)
    assert judge == LlmJudge("google/gemini-2.5-flash", AA30, n_votes=3, seed=1)
    with pytest.raises(FfsiteError, match="--judge rules votes once on its own traits"):
        make_judge("rules", votes=2)


@dataclass(frozen=True)
class LongerSide:
    """A judge outside ffsite: every trait picks the longer response."""

    id: str = "longer-1"
    version: str = "longer-1"
    traits: tuple = RULE_TRAITS[:2]
    seeds: tuple = (0,)
    api_models: tuple = ()

    def describe(self) -> str:
        return "the longer side"

    def requests(self, pairs):
        return []

    def votes(self, pairs, replies):
        longer = np.where([len(a) > len(b) for a, b in zip(pairs.texts_a, pairs.texts_b,
                                                            strict=True)], "A", "B")
        votes = np.repeat(longer.astype(object)[:, None], len(self.traits), axis=1)
        return Votes(np.arange(len(pairs)), np.zeros(len(pairs), int), votes,
                     np.full(votes.shape, None, object))


def test_any_judge_without_an_api_judges_a_dataset(tmp_path):
    imported = import_alpaca_eval(write_alpaca_eval(tmp_path), seed=2)
    write_votes(imported.table, tmp_path / "ann" / "preferences.parquet",
                default_preference=imported.default_preference)
    line = annotate_dataset([tmp_path / "ann"], dataset="alpaca_eval", base_dir=tmp_path,
                            out=tmp_path / "longer.parquet", judge=LongerSide())
    assert line.startswith(f"wrote {tmp_path / 'longer.parquet'}: 14 votes of longer-1 on 7")
    annotations = read_annotations([tmp_path / "longer.parquet"])
    assert set(annotations.annotators["judge"]) == {"longer-1"}
    texts = {response_id(model, prompt_id(instruction)): text
             for model, answers in OUTPUTS.items() for instruction, text in answers.items()}
    comparisons = annotations.comparisons.astype(object)
    for row in annotations.votes.itertuples():
        comparison = comparisons.iloc[row.comparison]
        longer_a = (len(texts[comparison["response_a_id"]])
                    > len(texts[comparison["response_b_id"]]))
        assert row.vote == (1 if longer_a else 2)  # vote codes: 1 is A, 2 is B
    with pytest.raises(FfsiteError, match="judge j asks an API"):
        annotate_dataset([tmp_path / "ann"], dataset="alpaca_eval", base_dir=tmp_path,
                         out=tmp_path / "x.parquet", judge=LlmJudge("j"))
