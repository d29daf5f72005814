"""ffsite.format's public face: other packages use it, not the private `_*` modules, and
importing it costs nothing until a name is used."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import two_comparisons, write_test_votes

import ffsite.format
from ffsite.format import CodedVotes, read_votes_file, schema

REPO = Path(__file__).resolve().parents[1]
FORMAT = REPO / "ffsite" / "format"


def private_format_imports(source: str) -> list[str]:
    """The private ffsite.format modules a module's source imports, however spelled."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        found += [name for name in names if name.startswith("ffsite.format.")
                  and name.split(".")[2].startswith("_")]
    return found


@pytest.mark.parametrize("source", [
    "import ffsite.format._columns",
    "from ffsite.format._columns import codes_of",
    "from ffsite.format import _checked, schema",
    "def f():\n    from ffsite.format import _wide\n",
])
def test_every_spelling_of_a_private_import_is_found(source):
    assert private_format_imports(source)


def test_public_imports_are_not_flagged():
    assert not private_format_imports(
        "import ffsite.format.read\nfrom ffsite.format import schema, codes_of\n"
        "from ffsite.format.write import write_votes\nfrom ffsite import _names\n")


def test_no_module_outside_format_imports_its_private_modules():
    outside = [path for folder in ("ffsite", "benchmarks")
               for path in sorted((REPO / folder).rglob("*.py"))
               if FORMAT not in path.parents]
    assert len(outside) > 50
    offenders = {str(path.relative_to(REPO)): names for path in outside
                 if (names := private_format_imports(path.read_text(encoding="utf-8")))}
    assert not offenders, f"import these from ffsite.format instead: {offenders}"


def test_every_public_name_resolves_to_its_definition():
    for name in ffsite.format.__all__:
        value = getattr(ffsite.format, name)
        assert getattr(value, "__name__", name).rpartition(".")[2] == name, name
    from ffsite.format import CodedVotes, read_votes_file
    from ffsite.format.read import read_votes_file as defined
    assert read_votes_file is defined and CodedVotes.__module__ == "ffsite.format.coded"
    with pytest.raises(AttributeError):
        ffsite.format.no_such_name  # noqa: B018


def test_the_names_checkers_see_are_the_public_ones():
    """The TYPE_CHECKING imports, `__all__` and the run-time table list the same names."""
    tree = ast.parse((FORMAT / "__init__.py").read_text(encoding="utf-8"))
    guarded = next(node for node in tree.body if isinstance(node, ast.If))
    imported = {alias.asname or alias.name for node in ast.walk(guarded)
                if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert imported == set(ffsite.format.__all__) == set(ffsite.format._HOME)


def test_one_file_reads_as_coded_votes(tmp_path, monkeypatch):
    path = write_test_votes(tmp_path / "v.parquet", *two_comparisons())
    for cache in ("", "1"):  # from the writer's cache entry, then checked from scratch
        monkeypatch.setenv("FFSITE_NO_CACHE", cache)
        votes, metadata = read_votes_file(path)
        assert isinstance(votes, CodedVotes) and metadata["kind"] == schema.KIND_VOTES
        assert (votes.n_comparisons, votes.n_votes) == (2, 4)
        assert votes.n_annotators == 2  # the preference judge, the trait judge
        assert set(votes.annotators) == set(schema.ANNOTATOR_COLUMNS)
        assert votes.comparison.max() < votes.n_comparisons
        assert votes.annotator.max() < votes.n_annotators
        assert np.isin(votes.vote, list(schema.VOTE_CODES.values())).all()
        with pytest.raises(dataclasses.FrozenInstanceError):
            votes.vote = votes.vote[:1]


def _loaded_after(statement: str) -> set[str]:
    code = (f"import sys\n{statement}\n"
            "print(' '.join(m for m in sys.modules if m.startswith('ffsite.format')))")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                            text=True, check=True)
    return set(result.stdout.split())


def test_importing_the_face_loads_nothing_else():
    assert _loaded_after("import ffsite.format") == {"ffsite.format"}


def test_reading_does_not_load_the_writer():
    """`ffsite metrics` imports the reader: it must not pay for the writer and the rest."""
    loaded = _loaded_after("from ffsite.format import read_annotations")
    assert "ffsite.format.read" in loaded
    assert not loaded & {"ffsite.format.write", "ffsite.format.encode",
                         "ffsite.format.upgrade", "ffsite.format.validate"}
