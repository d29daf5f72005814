"""The model registry (content/models.toml) is input like any other (issue 28): every field
passes the one text check, one name means one model (no entry may take in another model's
comparisons, the reference model's included), and a file too deep or too large is one
line: in `validate` exactly as in `build`."""

from __future__ import annotations

import re

import pytest
from helpers import run_main
from site_fixture import REPO, write_content, write_tiny

from ffsite.errors import FfsiteError
from ffsite.models import load_registry


@pytest.fixture
def workspace(tmp_path):
    """The tiny set: models m1, m2 and the reference R in dataset d."""
    write_tiny(tmp_path / "annotations")
    write_content(tmp_path / "content")
    return tmp_path


def registry(root, text: str) -> None:
    (root / "content" / "models.toml").write_text(text, "utf-8")


def both_refuse(root, monkeypatch, capsys, *needles: str) -> None:
    """`validate` and `build` each stop with the same one line, and build writes nothing."""
    commands = {
        "validate": ["validate", str(root / "annotations"), "--content", str(root / "content")],
        "build": ["build", "--annotations", str(root / "annotations"), "--content",
                  str(root / "content"), "--templates", str(REPO / "templates"), "--out",
                  str(root / "site"), "--quiet"]}
    errors = []
    for command, args in commands.items():
        status, _, err = run_main(monkeypatch, capsys, *args)
        lines = err.strip().splitlines()
        assert status == 1 and len(lines) == 1 and lines[0].startswith("error: "), (
            command, err)
        assert "\x1b" not in err and "Traceback" not in err
        missing = [n for n in needles if n not in lines[0]]
        assert missing == [], (command, lines[0])
        errors.append(lines[0])
    assert errors[0] == errors[1]
    assert not (root / "site").exists()


ENTRY = "[[models]]\nid = {id}\nname = {name}\n"


@pytest.mark.parametrize(("field", "value", "needle"), [
    ("id", '"m1\\u0001"', "'id': text holds the control character U+0001"),
    ("id", '"m1\\u0000"', "'id': text holds the control character U+0000"),
    ("name", '"\\u001b[2J\\u001b[31mOne"', "'name': text holds the control character U+001B"),
    ("name", '"One\\nerror: forged"', "'name': text holds the control character U+000A"),
    ("name", '"' + "N" * 10_001 + '"', "'name': text longer than 10,000 characters"),
])
def test_a_bad_text_in_any_field_stops_validate_and_build(workspace, monkeypatch, capsys,
                                                          field, value, needle):
    values = {"id": '"one"', "name": '"One"', field: value}
    registry(workspace, ENTRY.format(**values) + 'aliases = { d = ["m1"] }\n')
    both_refuse(workspace, monkeypatch, capsys, "models.toml: [[models]] entry 0", needle)


@pytest.mark.parametrize("field", ["organisation", "note", "released"])
def test_every_other_field_gets_the_same_check(tmp_path, field):
    (tmp_path / "models.toml").write_text(ENTRY.format(id='"a"', name='"A"')
                                          + f'{field} = "x\\u009bx"\n')
    with pytest.raises(FfsiteError, match=f"'{field}': text holds the control character"):
        load_registry(tmp_path)


def test_an_alias_with_a_control_character_is_refused(tmp_path):
    (tmp_path / "models.toml").write_text(ENTRY.format(id='"a"', name='"A"')
                                          + 'aliases = { d = ["m\\u0007"] }\n')
    with pytest.raises(FfsiteError, match=re.escape("aliases.d: text holds the control "
                                                    "character U+0007")):
        load_registry(tmp_path)


def test_an_id_that_is_another_models_name_would_merge_it_and_is_refused(
        workspace, monkeypatch, capsys):
    # m2 is the data's own name of a model no entry lists; this entry takes its name as
    # id and lists m1: m1's and m2's comparisons would become one model's.
    registry(workspace, ENTRY.format(id='"m2"', name='"Two"') + 'aliases = { d = ["m1"] }\n')
    both_refuse(workspace, monkeypatch, capsys, "in dataset 'd', 'm2'", "'m1'",
                "would be one model 'm2'")


def test_an_id_that_is_the_reference_model_would_merge_and_is_refused(
        workspace, monkeypatch, capsys):
    registry(workspace, ENTRY.format(id='"R"', name='"Reference"')
             + 'aliases = { d = ["m1"] }\n')
    both_refuse(workspace, monkeypatch, capsys, "in dataset 'd', 'R'", "would be one model 'R'")


def test_an_alias_or_name_that_is_the_reference_model_is_refused(
        workspace, monkeypatch, capsys):
    registry(workspace, ENTRY.format(id='"other"', name='"Other"')
             + 'aliases = { e = ["R"] }\n')
    both_refuse(workspace, monkeypatch, capsys, "its alias in e 'R' is already the id of the "
                "site's reference_model")
    registry(workspace, ENTRY.format(id='"other"', name='"R"'))
    both_refuse(workspace, monkeypatch, capsys, "its name 'R' is already the id of the site's "
                "reference_model")


def test_listing_every_name_merges_on_purpose(workspace, monkeypatch, capsys):
    registry(workspace, ENTRY.format(id='"one"', name='"One"')
             + 'aliases = { d = ["m1", "m2"] }\n')
    status, out, err = run_main(monkeypatch, capsys, "validate", str(workspace / "annotations"),
                                "--content", str(workspace / "content"))
    assert status == 0, err


@pytest.mark.parametrize(("text", "needle"), [
    (ENTRY.format(id='"a"', name='"A"') + ENTRY.format(id='"A"', name='"B"'),
     "entry 1 (id 'A'): its id 'A' is already the name of entry 'a'"),
    (ENTRY.format(id='"a"', name='"A"') + ENTRY.format(id='"b"', name='"a"'),
     "entry 1 (id 'b'): its name 'a' is already the id of entry 'a'"),
    (ENTRY.format(id='"a"', name='"A"') + 'aliases = { d = ["x"] }\n'
     + ENTRY.format(id='"b"', name='"x"'), "its name 'x' is already the alias in d of entry 'a'"),
])
def test_one_name_means_one_model(tmp_path, text, needle):
    (tmp_path / "models.toml").write_text(text)
    with pytest.raises(FfsiteError) as caught:
        load_registry(tmp_path)
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)


def test_what_may_be_shared_stays_allowed(tmp_path):
    # A display name shared by two entries; one spelling meaning two models in two
    # datasets; an entry whose id is also its own alias and name.
    (tmp_path / "models.toml").write_text(
        ENTRY.format(id='"a"', name='"Same"') + 'aliases = { d = ["x", "a"] }\n'
        + ENTRY.format(id='"b"', name='"Same"') + 'aliases = { e = ["x"] }\n'
        + ENTRY.format(id='"c"', name='"c"') + 'aliases = { d = ["c"] }\n')
    assert [m.id for m in load_registry(tmp_path, reference="a").models] == ["a", "b", "c"]


def test_an_alias_may_be_another_entrys_id_and_means_its_own_model(tmp_path):
    # llm-dreams spells its own run "gemini-3-pro-preview", the id of another entry: the
    # alias is listed on purpose, so each name keeps one meaning per dataset.
    (tmp_path / "models.toml").write_text(
        ENTRY.format(id='"a"', name='"A"') + 'aliases = { d = ["a-in-d"] }\n'
        + ENTRY.format(id='"b"', name='"B"') + 'aliases = { e = ["a"] }\n')
    found = load_registry(tmp_path)
    assert found.model_id("e", "a") == "b" and found.model_id("d", "a-in-d") == "a"
    assert found.resolve("a") == "a"  # an id first, as documented


def test_a_deeply_nested_registry_is_one_line(workspace, monkeypatch, capsys):
    registry(workspace, "x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    both_refuse(workspace, monkeypatch, capsys, "models.toml: nested too deeply")


def test_a_registry_too_large_to_be_one_is_refused_before_reading(tmp_path):
    (tmp_path / "models.toml").write_text(ENTRY.format(id='"a"', name='"' + "N" * (9 << 20)
                                                       + '"'))
    with pytest.raises(FfsiteError, match=r"models.toml: larger than 8 MB"):
        load_registry(tmp_path)


def test_the_shipped_registry_passes_with_the_shipped_reference():
    from ffsite.site.config import load_config

    content = REPO / "content"
    reference = load_config(content).reference_model
    assert len(load_registry(content, reference=reference).models) > 100


def test_ratings_refuse_the_merge_too(workspace, monkeypatch, capsys):
    registry(workspace, ENTRY.format(id='"m2"', name='"Two"') + 'aliases = { d = ["m1"] }\n')
    status, _, err = run_main(monkeypatch, capsys, "ratings", str(workspace / "annotations"),
                              "--content", str(workspace / "content"), "--bootstrap", "10")
    assert status == 1 and "would be one model 'm2'" in err and len(err.splitlines()) == 1
