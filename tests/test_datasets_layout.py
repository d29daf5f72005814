"""The structure the next datasets stand on (issue 22): a dataset is one folder and one
record, and nothing outside its folder names it; no private name crosses a package; no
module or function grows long without saying why."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import click
import pytest

from ffsite.datasets import DATASETS, find
from ffsite.datasets.record import Dataset

PACKAGE = Path(__file__).resolve().parents[1] / "ffsite"
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80
REASON = "# long: "  # the first line of a longer module or function body says why
HOOKS = ("texts", "prompt_set", "answers", "command", "defaults", "builder", "trait_page",
         "home", "model_section", "reasoning", "peer_judgments", "protocol")


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def home_of(path: Path) -> str:
    """The package a module belongs to (a package's __init__ belongs to itself)."""
    name = module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def folder_of(dataset: Dataset) -> Path:
    return PACKAGE / "datasets" / dataset.id


def test_no_dataset_id_or_dataset_module_outside_its_folder():
    found = []
    for path in modules():
        inside = {d.id for d in DATASETS if folder_of(d) in path.parents}
        listing = path == PACKAGE / "datasets" / "__init__.py"  # the one list
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for dataset in DATASETS:
                    named = node.value == dataset.id or node.value.startswith(dataset.id + "/")
                    if named and dataset.id not in inside:
                        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} "
                                     f"{node.value!r}")
            if isinstance(node, ast.ImportFrom) and node.module and not listing:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                for dataset in DATASETS:
                    own = f"ffsite.datasets.{dataset.id}"
                    if dataset.id not in inside and any(
                            t == own or t.startswith(own + ".") for t in targets):
                        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} imports "
                                     f"{own}")
    assert found == []


def test_the_check_above_can_fail(tmp_path):
    """A literal of a dataset id is what the walk looks for (the walk on a known bad
    module, so the test above cannot pass by finding nothing)."""
    tree = ast.parse('SHOWN = "eqbench3"\nfrom ffsite.datasets.eqbench3 import reader\n')
    literals = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    imports = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert find(literals[0]) is not None and imports == ["ffsite.datasets.eqbench3"]


def test_no_private_name_or_module_is_imported_from_another_package():
    found = []
    for path in modules():
        here = home_of(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module
                    and node.module.startswith("ffsite")):
                continue
            target = node.module
            is_package = (PACKAGE.parent / Path(*target.split(".")) / "__init__.py").exists()
            owner = target if is_package else target.rpartition(".")[0]
            private_module = any(p.startswith("_") for p in target.split(".")[1:])
            for alias in node.names:
                if (alias.name.startswith("_") or private_module) and not (
                        here == owner or here.startswith(owner + ".")):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} "
                                 f"{target}.{alias.name}")
    assert found == []


def test_no_module_or_function_is_long_without_a_reason():
    long = []
    for path in modules():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        if len(lines) > MAX_MODULE_LINES and not any(
                line.startswith(REASON) for line in lines[:30]):
            long.append((str(path.relative_to(PACKAGE)), len(lines)))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = node.end_lineno - node.lineno + 1
                # Its signature or the first lines of its body say why.
                body = lines[node.lineno - 1:node.body[0].lineno + 2]
                if size > MAX_FUNCTION_LINES and not any(REASON in line for line in body):
                    long.append((str(path.relative_to(PACKAGE)), node.name, size))
    assert long == []


@pytest.mark.parametrize("dataset", DATASETS, ids=lambda d: d.id)
def test_every_record_is_whole(dataset):
    package = importlib.import_module(dataset.package)
    assert package.DATASET is dataset and dataset.package == f"ffsite.datasets.{dataset.id}"
    assert find(dataset.id) is dataset
    for hook in HOOKS:
        if getattr(dataset, hook) is not None:
            assert callable(dataset.hook(hook)), hook
        else:
            assert dataset.hook(hook) is None
    # A dataset of ffsite's own (the AA-style panel) has nothing to import or download.
    if dataset.command or dataset.files:
        command = dataset.hook("command")
        assert isinstance(command, click.Command) and command.name == dataset.command_name
        assert dataset.file(dataset.files).is_file()
    else:
        assert dataset.protocol and dataset.commit is None
    assert dataset.source.url.startswith("https://") and dataset.source.licence
    assert dataset.commit is None or len(dataset.commit) == 40
    if dataset.defaults:
        assert list(inspect.signature(dataset.hook("defaults")).parameters) == [
            "root", "target", "settings"]


def test_ids_and_commands_are_unique():
    assert len({d.id for d in DATASETS}) == len(DATASETS)
    assert len({d.command_name for d in DATASETS}) == len(DATASETS)
    assert len({d.page for d in DATASETS if d.page}) == len([d for d in DATASETS if d.page])
