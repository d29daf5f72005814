"""The shape of ffsite/collect/: library messages name parameters, never the CLI's flags;
methods reach the API layer through its `__init__`; no module or function grows past
its size without saying why; the old annotate package is gone."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from site_fixture import REPO

COLLECT = REPO / "ffsite" / "collect"
FLAG = re.compile(r"--[a-z]")
# Text written into votes files, kept as files have always had it (collect/shared.py).
ALLOWED_FLAGS = {(Path("shared.py"), " (answer cut off at --judge-max-tokens)")}
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80
REASON = "# long: "  # the first line of a longer module or function body says why


def modules() -> list[Path]:
    return sorted(COLLECT.rglob("*.py"))


def strings(path: Path) -> list[tuple[int, str]]:
    """Every string literal of a module, docstrings and f-string parts included."""
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def test_no_string_under_collect_names_a_flag():
    found = [(path.relative_to(COLLECT), line, text) for path in modules()
             for line, text in strings(path) if FLAG.search(text)]
    assert {(path, text) for path, _, text in found} == ALLOWED_FLAGS, found


def test_methods_import_the_api_layer_through_its_init():
    private = []
    for path in modules():
        if path.parent.name == "api":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "ffsite.collect.api."):
                private.append((path.relative_to(COLLECT), node.module))
    assert private == []


def test_no_module_or_function_is_long_without_a_reason():
    long = []
    for path in modules():
        lines = path.read_text().splitlines()
        if len(lines) > MAX_MODULE_LINES and not lines[0].startswith(REASON):
            long.append((path.relative_to(COLLECT), len(lines)))
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            size = node.end_lineno - node.lineno + 1
            first = lines[node.body[0].lineno - 2].strip()  # the line above the body
            if size > MAX_FUNCTION_LINES and not first.startswith(REASON):
                long.append((path.relative_to(COLLECT), node.name, size))
    assert long == []


def test_the_old_annotate_package_is_gone():
    assert not (REPO / "ffsite" / "annotate").exists()
    users = [path.relative_to(REPO) for folder in ("ffsite", "tests", "benchmarks")
             for path in (REPO / folder).rglob("*.py")
             if re.search(r"\bffsite\.annotate\b", path.read_text())]
    assert users == []
