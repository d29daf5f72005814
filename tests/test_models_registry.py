"""The model registry: aliases per dataset, unknown names, mistakes in the file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ffsite.errors import FfsiteError
from ffsite.models import load_registry

REPO = Path(__file__).resolve().parents[1]

GOOD = """
[[models]]
id = "claude-3-5-sonnet-20240620"
name = "Claude 3.5 Sonnet (June 2024)"
organisation = "Anthropic"
open_weights = false
released = "2024-06-20"
[models.aliases]
alpaca_eval = "claude-3-5-sonnet-20240620"
behavioral_profiling = ["Claude-3.5-Sonnet-v1"]

[[models]]
id = "chatgpt-4o-latest"
name = "ChatGPT-4o (latest)"
aliases = { eqbench3 = ["chatgpt-4o-latest", "openai/chatgpt-4o-latest"] }
"""


def registry_from(tmp_path, text):
    (tmp_path / "models.toml").write_text(text)
    return load_registry(tmp_path)


def test_aliases_per_dataset(tmp_path):
    registry = registry_from(tmp_path, GOOD)
    assert registry.model_id("behavioral_profiling", "Claude-3.5-Sonnet-v1") == \
        "claude-3-5-sonnet-20240620"
    assert registry.model_id("eqbench3", "openai/chatgpt-4o-latest") == "chatgpt-4o-latest"
    # An alias belongs to its dataset: the same spelling elsewhere is its own model.
    assert registry.model_id("alpaca_eval", "Claude-3.5-Sonnet-v1") == "Claude-3.5-Sonnet-v1"
    assert registry.model_id("alpaca_eval", "new-model") == "new-model"
    assert list(registry.ids(["eqbench3", "x", "eqbench3"],
                             ["chatgpt-4o-latest", None, "other"])) == [
        "chatgpt-4o-latest", None, "other"]
    assert registry.display_name("chatgpt-4o-latest") == "ChatGPT-4o (latest)"
    assert registry.display_name("new-model") == "new-model"


def test_ids_resolve_each_pair_whatever_holds_them(tmp_path):
    registry = registry_from(tmp_path, GOOD)
    # Worked by hand from GOOD: an alias resolves only in its own dataset, an unknown
    # name stays itself, and a missing or empty name is None.
    datasets = ["behavioral_profiling", "alpaca_eval", "eqbench3", "eqbench3", "x", None]
    names = ["Claude-3.5-Sonnet-v1", "Claude-3.5-Sonnet-v1", "openai/chatgpt-4o-latest",
             "", None, "other"]
    expected = ["claude-3-5-sonnet-20240620", "Claude-3.5-Sonnet-v1", "chatgpt-4o-latest",
                None, None, "other"]
    assert list(registry.ids(datasets, names)) == expected
    many = 400  # repeated pairs, as Arrow string columns of a frame with its own index
    frame = pd.DataFrame({"dataset": pd.array(datasets[:4] * many, dtype="str"),
                          "model": pd.array(names[:4] * many, dtype="str")},
                         index=range(7, 7 + 4 * many))
    assert list(registry.ids(frame["dataset"], frame["model"])) == expected[:4] * many
    assert list(registry.ids(iter(datasets), (n for n in names))) == expected
    assert list(registry.ids([], [])) == []
    with pytest.raises(ValueError, match="length"):
        registry.ids(["eqbench3"], [])


def test_unmatched_aliases_are_reported_for_datasets_seen(tmp_path):
    registry = registry_from(tmp_path, GOOD)
    seen = {("eqbench3", "chatgpt-4o-latest"), ("alpaca_eval", "claude-3-5-sonnet-20240620")}
    assert registry.unmatched(seen) == ["eqbench3: openai/chatgpt-4o-latest"]


def test_no_file_is_an_empty_registry(tmp_path):
    assert load_registry(tmp_path).model_id("d", "m") == "m"


@pytest.mark.parametrize(("text", "needle"), [
    ("[[models]]\nname = 'x'\n", "entry 0: 'id' must be a non-empty text"),
    ("[[models]]\nid = 'a'\nname = 'A'\ncolour = 'red'\n", "unknown key 'colour'"),
    ("[[models]]\nid = 'a'\nname = 'A'\nreleased = 'June'\n", "'released' must be YYYY-MM-DD"),
    ("[[models]]\nid = 'a'\nname = 'A'\nopen_weights = 'yes'\n",
     "models.toml: [[models]] entry 0 (id 'a'): 'open_weights' must be true or false"),
    ("[[models]]\nid = 'a'\nname = 'A'\n[[models]]\nid = 'b'\nname = 'B'\n"
     "released = '2024-13'\n", "entry 1 (id 'b'): 'released' must be YYYY-MM-DD, YYYY-MM or "
     "YYYY, not '2024-13'"),
    ("[[models]]\nid = 'a'\nname = 'A'\norganisation = 3\n",
     "(id 'a'): 'organisation' must be a non-empty text"),
    ("[[models]]\nid = 'a'\nname = 'A'\norganisation = ' '\n",
     "(id 'a'): 'organisation' must be a non-empty text"),
    ("[[models]]\nid = 'a'\nname = 'A'\n[[models]]\nid = 'a'\nname = 'B'\n",
     "entry 1: id 'a' is used by an earlier entry"),
    ("[[models]]\nid = 'a'\nname = 'A'\naliases = {d = 'x'}\n"
     "[[models]]\nid = 'b'\nname = 'B'\naliases = {d = ['x']}\n",
     "entry 1: alias 'x' in d already belongs to 'a'"),
    ("[[models]]\nid = 'a'\nname = 'A'\naliases = {d = []}\n", "aliases.d must be a name"),
    ("models = 3\n", "expected only [[models]] entries"),
    ("[[models]\n", "not valid TOML"),
])
def test_mistakes_are_one_line_errors(tmp_path, text, needle):
    with pytest.raises(FfsiteError) as caught:
        registry_from(tmp_path, text)
    assert needle in str(caught.value) and "\n" not in str(caught.value)


def test_the_shipped_registry_covers_every_name_of_the_real_data(shared_data):
    import gzip
    import json
    from pathlib import Path

    registry = load_registry(Path(__file__).resolve().parents[1] / "content")
    # AlpacaEval names a model by the `generator` of its outputs (one file is named
    # otherwise).
    names = {("alpaca_eval", json.loads(p.read_text())[0]["generator"])
             for p in (shared_data / "alpaca_eval" / "model_outputs").glob("*.json")}
    jobs = json.loads((shared_data / "behavioral_profiling" / "contributions" /
                       "baseline.json").read_text())["job_contributions"]
    names |= {("behavioral_profiling", m) for job in jobs.values() for m in job["contributions"]}
    with gzip.open(shared_data / "eqbench3" / "pairwise_comparisons.json.gz", "rt") as handle:
        entries = json.load(handle)["__metadata__"]["global_pairwise_comparisons"]
    names |= {("eqbench3", e["pair"][side]) for e in entries
              for side in ("test_model", "neighbor_model")}
    assert len(names) == 67 + 46 + 27
    assert all(registry.get(registry.model_id(d, n)) is not None for d, n in names)
    assert registry.unmatched(names) == []
    # The same model under three spellings has one id.
    assert registry.model_id("behavioral_profiling", "Claude-3.5-Sonnet-v1") == \
        registry.model_id("alpaca_eval", "claude-3-5-sonnet-20240620")


def test_validate_names_registry_aliases_that_match_nothing(tmp_path):
    from helpers import run_here, two_comparisons, write_test_votes

    write_test_votes(tmp_path / "v.parquet", *two_comparisons())  # models m1, m2 in "d"
    content = tmp_path / "content"
    content.mkdir()
    (content / "models.toml").write_text(
        "[[models]]\nid = 'one'\nname = 'One'\naliases = { d = ['m1', 'm3'], e = ['x'] }\n")
    result = run_here("validate", str(tmp_path / "v.parquet"), "--content", str(content))
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stdout.splitlines() if line.startswith("note:")]
    # m3 is not in dataset d; dataset e is not in these files at all, so x is not judged.
    assert notes == [f"note: {content}/models.toml: alias d: m3 matches no model in these "
                     "files (a typo, or a model the data no longer has)"]


LINEAGE = """
[[models]]
id = "a"
name = "A 1"
released = "2024-03"
family = "A"

[[models]]
id = "b"
name = "A 2"
released = "2024-06-01"
family = "A"
predecessor = "a"

[[models]]
id = "c"
name = "A 3 (undated)"
family = "A"
predecessor = "b"
"""


def test_family_and_predecessor_are_read(tmp_path):
    registry = registry_from(tmp_path, LINEAGE)
    assert registry.get("b").family == "A" and registry.get("b").predecessor == "a"
    assert registry.successors("a") == ["b"] and registry.successors("c") == []
    assert [m.id for m in registry.families()["A"]] == ["a", "b", "c"]


@pytest.mark.parametrize(("change", "needle"), [
    (('predecessor = "a"', 'predecessor = "zz"'), "entry 1 (id 'b'): 'predecessor' 'zz' is no "
     "entry's id"),
    (('predecessor = "a"', 'predecessor = "b"'), "entry 1 (id 'b'): 'predecessor' is the "
     "entry itself"),
    (('family = "A"\n\n[[models]]\nid = "b"', 'family = "A"\npredecessor = "c"\n\n[[models]]'
      '\nid = "b"'), "entry 0 (id 'a'): its predecessors loop back to 'a'"),
    (('released = "2024-03"', 'released = "2024-07"'), "entry 1 (id 'b'): its predecessor 'a' "
     "was released 2024-07, after it (2024-06-01)"),
    (('family = "A"\npredecessor = "b"', 'family = ""'), "entry 2 (id 'c'): 'family' must be "
     "a non-empty text"),
    (('family = "A"\npredecessor = "b"', 'family = "A\\u0007"'), "entry 2 (id 'c'): 'family': "
     "text holds the control character U+0007"),
    (('predecessor = "b"', 'predecessor = 3'), "'predecessor' must be a non-empty text"),
])
def test_lineage_mistakes_are_one_line_errors(tmp_path, change, needle):
    text = LINEAGE.replace(*change)
    assert text != LINEAGE
    with pytest.raises(FfsiteError) as error:
        registry_from(tmp_path, text)
    assert needle in str(error.value) and "\n" not in str(error.value)


VARIANTS = LINEAGE + """
[[models]]
id = "b-thinking"
name = "A 2 (thinking)"
variant_of = "b"
"""


def test_variant_of_is_read_and_checked(tmp_path):
    assert registry_from(tmp_path, VARIANTS).get("b-thinking").variant_of == "b"
    for change, needle in [
        (('variant_of = "b"', 'variant_of = "zz"'), "entry 3 (id 'b-thinking'): 'variant_of' "
         "'zz' is no entry's id"),
        (('variant_of = "b"', 'variant_of = "b-thinking"'), "'variant_of' is the entry itself"),
        (('variant_of = "b"', 'variant_of = "x"\n\n[[models]]\nid = "x"\nname = "X"\n'
          'variant_of = "b"'), "entry 3 (id 'b-thinking'): 'variant_of' 'x' is itself a "
         "variant (of 'b'); name that entry instead"),
        (('variant_of = "b"', 'variant_of = "b\\u001b[31m"'), "'variant_of': text holds the "
         "control character U+001B"),
    ]:
        text = VARIANTS.replace(*change)
        assert text != VARIANTS
        with pytest.raises(FfsiteError) as error:
            registry_from(tmp_path, text)
        assert needle in str(error.value) and "\n" not in str(error.value), change


def test_the_shipped_variants_name_their_base_model():
    from ffsite.models import load_registry as load

    registry = load(REPO / "content")
    variants = {m.id: m.variant_of for m in registry.models if m.variant_of}
    assert variants["claude-4.5-sonnet-thinking"] == "claude-4.5-sonnet"
    assert variants["gpt4_1106_preview_verbose"] == "gpt4_1106_preview"
    # Every thinking mode and prompted style whose base has an entry names it.
    for model in registry.models:
        for suffix in ("-thinking", "_concise", "_verbose"):
            base = model.id.removesuffix(suffix)
            if base != model.id and registry.get(base) is not None:
                assert variants.get(model.id) == base, model.id
    assert len(variants) == 18


def test_a_month_is_not_after_a_day_of_it(tmp_path):
    """'2024-06' and '2024-06-01' are compared to the month both give: not 'after'."""
    registry_from(tmp_path, LINEAGE.replace('released = "2024-03"', 'released = "2024-06"'))


def test_the_shipped_families_keep_modes_and_sizes_apart():
    from ffsite.models import load_registry as load

    registry = load(REPO / "content")
    families = registry.families()
    # Claude 3 -> 3.5 -> 3.7 -> 4 -> 4.5 Sonnet, each replacing the one before.
    chain, current = [], "claude-4.5-sonnet"
    while current:
        chain.append(current)
        current = registry.get(current).predecessor
    assert chain == ["claude-4.5-sonnet", "claude-4-sonnet", "claude-3.7-sonnet",
                     "claude-3.5-sonnet-v2", "claude-3-5-sonnet-20240620",
                     "claude-3-sonnet-20240229"]
    sonnet = {m.id for m in families["Claude Sonnet"]}
    assert "claude-4-sonnet-thinking" not in sonnet
    assert {m.id for m in families["Claude Sonnet (thinking)"]} == {
        "claude-4-sonnet-thinking", "claude-4.5-sonnet-thinking"}
    for family, members in families.items():  # a family never mixes thinking and not
        thinking = {"thinking" in m.id for m in members}
        assert len(thinking) == 1, family
    # Prompting variants have no family.
    assert all(registry.get(m.id).family is None for m in registry.models
               if m.id.endswith(("_concise", "_verbose")))
