"""`ffsite validate --site`: a contributed file checked against the site it joins."""

from __future__ import annotations

import json
import shutil

import pytest
from annotate_helpers import instructions, make_base_data, run_cli
from helpers import run_here, trait, write_test_votes

from ffsite.collect.annotate.contrib import check_contribution
from ffsite.errors import FfsiteError

NO_API = {"FFSITE_API_BASE": "http://127.0.0.1:9/v1", "FFSITE_API_KEY": ""}


@pytest.fixture
def site(tmp_path):
    """A site with 6 AlpacaEval prompts (other-model vs the reference), and base data
    with 8 prompts, so a contribution can stray outside the site's prompt set."""
    small = make_base_data(tmp_path / "base6", 6)
    made = run_cli(["import", "alpaca-eval", str(small / "alpaca_eval"), "--out",
                    str(tmp_path / "site" / "alpaca_eval.parquet")], NO_API)
    assert made.exit_code == 0, made.output
    big = make_base_data(tmp_path / "base8", 8)
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"instruction": t, "response": f"Mine, {i}."}
                                   for i, t in enumerate(instructions(8))]))
    return tmp_path / "site", big, answers


def contribute(tmp_path, base, answers, model, out, limit=6):
    result = run_cli(["annotate", "--model", model, "--judge", "rules", "--responses",
                      str(answers), "--limit", str(limit), "--base-data", str(base),
                      "--out", str(out)], NO_API)
    assert result.exit_code == 0, result.output
    return out


def _site_answers(tmp_path):
    """Answers to exactly the site's 6 prompts."""
    path = tmp_path / "inside.json"
    path.write_text(json.dumps([{"instruction": t, "response": "Mine."}
                                for t in instructions(6)]))
    return path


def _validate(*args):
    return run_cli(["validate", *map(str, args)], NO_API)


def test_a_good_contribution_passes(site, tmp_path):
    folder, base, _ = site
    path = contribute(tmp_path, base, _site_answers(tmp_path), "new-model",
                      folder / "contrib" / "new.parquet")
    result = _validate(path, "--site", folder)
    assert result.exit_code == 0, result.output
    assert ("model 'new-model', judge 'rules-1'" in result.output
            and "6 of 6 prompts of alpaca_eval" in result.output)


def test_prompts_outside_the_site_are_refused(site, tmp_path):
    folder, base, answers = site
    path = contribute(tmp_path, base, answers, "new-model", tmp_path / "c.parquet", limit=8)
    result = _validate(path, "--site", folder)
    assert isinstance(result.exception, FfsiteError)
    assert "is not in the site's prompt set of alpaca_eval" in str(result.exception)


def test_a_model_already_on_the_site_needs_replace(site, tmp_path):
    folder, base, _ = site
    inside = _site_answers(tmp_path)
    first = contribute(tmp_path, base, inside, "new-model", folder / "contrib" / "a.parquet")
    second = contribute(tmp_path, base, inside, "new-model", tmp_path / "b.parquet")
    refused = _validate(second, "--site", folder)
    assert "model 'new-model' is already on the site" in str(refused.exception)
    replaced = _validate(second, "--site", folder, "--replace")
    assert replaced.exit_code == 0, replaced.output
    # A model of the site's own files may be re-judged with --replace: same comparisons.
    other = contribute(tmp_path, base, inside, "other-model", tmp_path / "o.parquet")
    assert "already on the site" in str(_validate(other, "--site", folder).exception)
    assert _validate(other, "--site", folder, "--replace").exit_code == 0
    assert first.exists()


def test_size_cap_and_missing_summary(site, tmp_path):
    folder, base, _ = site
    inside = _site_answers(tmp_path)
    path = contribute(tmp_path, base, inside, "new-model", tmp_path / "c.parquet")
    with pytest.raises(FfsiteError, match="over the 1000-byte cap"):
        check_contribution(path, folder, max_bytes=1000)

    bare = write_test_votes(tmp_path / "bare.parquet", [{"comparison_id": "c1"}],
                            [{"comparison_id": "c1", "judge": "j", "vote": "A",
                              **trait("is more verbose")}])
    with pytest.raises(FfsiteError, match="no run summary"):
        check_contribution(bare, folder)


def test_cli_error_is_one_line_and_exit_1(site, tmp_path):
    folder, base, answers = site
    path = contribute(tmp_path, base, answers, "new-model", tmp_path / "c.parquet", limit=8)
    shutil.copy(path, tmp_path / "copy.parquet")
    done = run_here("validate", str(tmp_path / "copy.parquet"), "--site", str(folder),
                    env=NO_API)
    stderr = done.stderr
    assert done.returncode == 1
    assert stderr.count("\n") == 1 and stderr.startswith("error: ")
    assert "Traceback" not in stderr


def test_a_contribution_of_mostly_invalid_votes_is_refused(site, tmp_path):
    from annotate_helpers import api_env
    from chat_server import ChatServer, Reply, hashed_judge

    folder, base, _ = site

    def half_broken(request):  # every other judge call fails: 50% invalid votes
        if request.is_judge and request.index % 2:
            return Reply(status=400)
        return hashed_judge(request)

    out = folder / "contrib" / "broken.parquet"
    with ChatServer(half_broken) as server:
        made = run_here("annotate", "--model", "broken", "--judge", "j", "--responses",
                        str(_site_answers(tmp_path)), "--base-data", str(base), "--cache-dir",
                        str(tmp_path / "cache"), "--out", str(out), "--max-invalid", "1",
                        env=api_env(server.url))
    assert made.returncode == 0, made.stderr
    result = _validate(out, "--site", folder)
    assert result.exit_code == 1
    assert "50.0% of the votes are invalid, more than the 20% a contribution may have" in str(
        result.exception)


def test_a_contribution_brings_its_communication_traits_to_the_site(site, tmp_path):
    import pyarrow.parquet as pq
    from site_fixture import REPO, write_content

    from ffsite.judges.communication import communication_traits
    from ffsite.site.build import build_site

    folder, base, _ = site
    answers = tmp_path / "answers-6.json"
    texts = [f"Mine, {i}! Is it *good*? Yes - " + "word " * i for i in range(6)]
    answers.write_text(json.dumps([{"instruction": t, "response": texts[i]}
                                   for i, t in enumerate(instructions(6))]))
    votes = contribute(tmp_path, base, answers, "new-model",
                       folder / "contrib" / "new-model.parquet")
    metrics = folder / "contrib" / "new-model.communication.parquet"
    assert metrics.is_file()
    rows = pq.read_table(metrics).to_pandas()
    assert set(rows["model"]) == {"new-model"} and len(rows) == 6
    by_text = {text: communication_traits(text) for text in texts}  # computed afresh
    expected = sorted(by_text[t]["words"] for t in texts)
    assert sorted(rows["words"]) == expected

    both = _validate(votes, metrics, "--site", folder)
    assert both.exit_code == 0, both.output
    assert ("communication traits of 6 responses of model 'new-model'" in both.output)

    write_content(tmp_path / "content", reference_model="gpt4_1106_preview")
    build_site(folder, tmp_path / "out", content=tmp_path / "content",
               templates=REPO / "templates", base_data=base)
    published = json.loads((tmp_path / "out" / "data" / "communication.json").read_text())
    assert "new-model" in {row["model"] for row in published}
    # Its example pairs show its own answers, read from the .responses.json beside the
    # votes (the base data has no answers of this model).
    assert not list(base.rglob("*new-model*"))
    page = (tmp_path / "out" / "models" / "new-model.html").read_text("utf-8")
    assert "Mine, " in page and "Is it <em>good</em>?" in page


def test_a_contribution_judged_by_another_judge_is_said_to_stand_apart(tmp_path):
    from ffsite.collect.annotate.contrib import _judged_apart
    from ffsite.format.read import read_annotations

    verbose, polite = trait("is more verbose"), trait("is more polite")
    site = write_test_votes(tmp_path / "site.parquet",
                            [{"comparison_id": "c0", "model_a": "m1", "model_b": "ref"}],
                            [{"comparison_id": "c0", **verbose, "judge": "rules-1",
                              "vote": "A"}])
    mine = write_test_votes(tmp_path / "mine.parquet",
                            [{"comparison_id": "c1", "model_a": "m2", "model_b": "ref"}],
                            [{"comparison_id": "c1", **t, "judge": "llm", "vote": "A"}
                             for t in (verbose, polite)])
    note = _judged_apart(read_annotations([site, mine]), "llm",
                         {verbose["trait_id"], polite["trait_id"]})
    assert note == ("note: the site judges 1 of these traits with rules-1, not 'llm': the "
                    "site shows this model's numbers on them apart, labelled '[judged by "
                    "llm]', not ranked against the other models")
    assert _judged_apart(read_annotations([mine]), "llm", {verbose["trait_id"]}) is None
