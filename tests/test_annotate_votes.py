"""Judge answers become votes on the file's sides: un-flipping, invalid votes, the record."""

from __future__ import annotations

import json

import pytest
from annotate_helpers import (
    REFERENCE,
    api_env,
    file_summary,
    instructions,
    make_base_data,
    read_rows,
    run_cli,
    sorted_prompt_ids,
)
from chat_server import ChatServer, Reply, judge_parts, longer_sample_judge

from ffsite.datasets.alpaca_eval.reader import prompt_id
from ffsite.format.read import read_annotations
from ffsite.traits import FF_V1

N = 8
MODEL = "test/model-x"


@pytest.fixture
def setup(tmp_path):
    base = make_base_data(tmp_path / "base", N)
    # Even prompts: a long answer (longer than the reference's); odd: a short one.
    answers = {text: ("A long and thorough answer. " * 5 if i % 2 == 0 else "Short.")
               for i, text in enumerate(instructions(N))}
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"instruction": t, "response": a}) + "\n"
                                 for t, a in answers.items()), encoding="utf-8")
    return base, responses, answers


def _args(base, responses, tmp_path, *extra):
    return ["annotate", "--model", MODEL, "--judge", "judge-1", "--responses", str(responses),
            "--base-data", str(base), "--cache-dir", str(tmp_path / "cache"),
            "--out", str(tmp_path / "out.parquet"), "--backoff", "0", *extra]


def test_content_judge_gives_the_same_votes_whatever_the_order(setup, tmp_path):
    base, responses, answers = setup
    with ChatServer(longer_sample_judge) as server:
        result = run_cli(_args(base, responses, tmp_path, "--votes", "3"), api_env(server.url))
        assert result.exit_code == 0, result.output
        shown_first = [judge_parts(r.user_text)[1] in answers.values()
                       for r in server.requests]
    # The judge saw the model's answer first in some calls and second in others.
    assert len(shown_first) == 3 * N and 0 < sum(shown_first) < 3 * N

    rows = read_rows(tmp_path / "out.parquet")
    assert len(rows) == N * 3 * len(FF_V1)
    assert {r["seed"] for r in rows} == {0, 1, 2}
    assert {r["model_a"] for r in rows} == {MODEL, REFERENCE}  # both side flips occur
    long_prompts = {prompt_id(t) for i, t in enumerate(instructions(N)) if i % 2 == 0}
    for row in rows:
        model_longer = row["prompt_id"] in long_prompts
        longer_model = MODEL if model_longer else REFERENCE
        expected = "A" if row["model_a"] == longer_model else "B"
        assert row["vote"] == expected, row


def test_votes_follow_the_order_the_judge_saw(setup, tmp_path):
    """A judge that always says "A" votes for whichever file side it was shown first."""
    base, responses, answers = setup
    with ChatServer(lambda r: Reply(json.dumps({str(i): "A" for i in range(1, 41)}))) as server:
        assert run_cli(_args(base, responses, tmp_path), api_env(server.url)).exit_code == 0
        first_is_model = {judge_parts(r.user_text)[0]: judge_parts(r.user_text)[1]
                          in answers.values() for r in server.requests}
    for row in read_rows(tmp_path / "out.parquet"):
        instruction = next(t for t in instructions(N) if prompt_id(t) == row["prompt_id"])
        shown_first = MODEL if first_is_model[instruction] else REFERENCE
        assert row["vote"] == ("A" if row["model_a"] == shown_first else "B")


def test_bad_answers_become_invalid_votes_with_reasons(setup, tmp_path):
    base, responses, _ = setup
    ids = sorted_prompt_ids(N)

    def judge(request):
        index = ids.index(prompt_id(judge_parts(request.user_text)[0]))
        if index == 0:
            return Reply("I cannot decide, both are fine.")
        if index == 1:  # fenced, only rules 1 and 2
            return Reply('```json\n{"1": "A", "2": "Both"}\n```')
        if index == 2:
            return Reply('{"1": "A", "2": "B", "3": "maybe"}', finish_reason="length")
        return Reply(json.dumps({str(i): "None" for i in range(1, 41)}))

    with ChatServer(judge) as server:
        result = run_cli(_args(base, responses, tmp_path, "--max-invalid", "1"),
                         api_env(server.url))
    assert result.exit_code == 0, result.output
    rows = read_rows(tmp_path / "out.parquet")
    by_prompt = {}
    for row in rows:
        by_prompt.setdefault(row["prompt_id"], []).append(row)
    order = {t.id: k for k, t in enumerate(FF_V1)}
    for votes in by_prompt.values():
        votes.sort(key=lambda r: order[r["trait_id"]])

    unparsable = by_prompt[ids[0]]
    assert {r["vote"] for r in unparsable} == {"invalid"}
    assert {r["note"] for r in unparsable} == {
        "unparsable answer (no JSON object with rule numbers)"}
    fenced = by_prompt[ids[1]]
    assert [r["vote"] for r in fenced[:2]] in (["A", "tie"], ["B", "tie"])
    assert fenced[2]["vote"] == "invalid"
    assert fenced[2]["note"] == "rule 3 missing from the answer"
    cut = by_prompt[ids[2]]
    assert cut[2]["note"] == ("rule 3: answer 'maybe' is not A, B, Both or None "
                              "(answer cut off at --judge-max-tokens)")
    assert all(r["vote"] == "neither" for p in ids[3:] for r in by_prompt[p])

    invalid = sum(r["vote"] == "invalid" for r in rows)
    assert invalid == 40 + 38 + 38
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["invalid_votes"] == invalid
    assert summary["invalid_rate"] == round(invalid / (N * 40), 6)
    assert summary["judge"] == "judge-1" and summary["trait_set"] == "ff-v1"
    assert summary["judge_calls"] == N and summary["generation_calls"] == 0


def test_the_file_reads_back_with_the_run_summary(setup, tmp_path):
    base, responses, _ = setup
    with ChatServer(longer_sample_judge) as server:
        assert run_cli(_args(base, responses, tmp_path, "--traits", "aa30"),
                       api_env(server.url)).exit_code == 0
    annotations = read_annotations([tmp_path / "out.parquet"])
    assert len(annotations.comparisons) == N
    assert set(annotations.comparisons["prompt_id"]) == set(sorted_prompt_ids(N))
    assert set(annotations.traits()["trait_set"]) == {"aa30"}
    summary = annotations.run_summaries[str(tmp_path / "out.parquet")]
    assert summary["model"] == MODEL and summary["traits"] == 30
    assert summary["responses"] == "given"
