"""Build small annotation files for tests from plain Python records."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ffsite.format import schema
from ffsite.format.write import write_votes
from ffsite.traits import PREFIX, trait_id


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (its path with "/") and its bytes: two builds compared."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def trait(text: str) -> dict:
    """The trait columns for a wording given without the 'Select the response that' lead."""
    wording = PREFIX + text
    return {"role": "trait", "trait_id": trait_id(wording), "trait": wording,
            "trait_set": "test"}


def vote_rows(comparisons: list[dict], votes: list[dict]) -> pd.DataFrame:
    """Join per-comparison dicts (by comparison_id) with per-vote dicts into format rows.

    A comparison dict needs `comparison_id` and may give dataset (default "d"), prompt_id,
    model_a, model_b, response ids and `meta.*` keys.  A vote dict needs comparison_id,
    vote, and either role="preference" with judge, or the trait columns (see `trait`)
    with judge; seed and note are optional.
    """
    by_id = {c["comparison_id"]: c for c in comparisons}
    rows = []
    for vote in votes:
        comparison = by_id[vote["comparison_id"]]
        row = {name: None for name in schema.REQUIRED_COLUMNS}
        row["dataset"] = "d"
        row.update(comparison)
        row.update(vote)
        rows.append(row)
    return pd.DataFrame(rows)


def write_test_votes(path: Path, comparisons: list[dict], votes: list[dict], **kwargs) -> Path:
    frame = vote_rows(comparisons, votes)
    if "seed" in frame:
        frame["seed"] = frame["seed"].astype("Int64")
    write_votes(frame, path, **kwargs)
    return path


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None):
    """Run `python -m ffsite ARGS` in a subprocess; return the CompletedProcess."""
    import os
    import subprocess
    import sys

    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "ffsite", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=600)


def two_comparisons() -> tuple[list[dict], list[dict]]:
    """A small good file's rows: two comparisons, a preference and a trait vote on each."""
    verbose = trait("is more verbose")
    comparisons = [{"comparison_id": "c0", "model_a": "m1", "model_b": "m2"},
                   {"comparison_id": "c1", "model_a": "m2", "model_b": "m1"}]
    votes = [{"comparison_id": "c0", "role": "preference", "judge": "h", "vote": "A"},
             {"comparison_id": "c1", "role": "preference", "judge": "h", "vote": "B"},
             {"comparison_id": "c0", **verbose, "judge": "j", "vote": "A"},
             {"comparison_id": "c1", **verbose, "judge": "j", "vote": "tie"}]
    return comparisons, votes


def expect_validate_error(path: Path, *needles: str) -> str:
    """`ffsite validate PATH` fails with one error line holding every needle."""
    result = run_here("validate", str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    message = result.stderr.strip()
    assert message.startswith("error: ") and "\n" not in message, message
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in message, message
    return message


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """`ffsite ARGS` in this process, as the console script runs it: exit status,
    stdout, stderr."""
    import sys

    from ffsite.cli import main

    monkeypatch.setattr(sys, "argv", ["ffsite", *args])
    try:
        main()
        status = 0
    except SystemExit as exc:
        status = exc.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err



def run_here(*args: str, cwd: Path | None = None,
             env: dict[str, str | None] | None = None):
    """`ffsite ARGS` in this process, as the console script runs it (ffsite.cli.main), at
    any fixture scope; a subprocess.CompletedProcess, as run_cli gives, without the 1.5-3.5 s
    of imports a fresh process pays.  `cwd` is the working folder during the run; `env`
    sets variables (None: unset).  An unexpected exception propagates (a fresh process
    would print its traceback and exit 1).  Use run_cli where the process is the point:
    the entry point, a hash seed, signals."""
    import contextlib
    import io
    import subprocess
    import sys

    import pytest

    from ffsite.cli import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        patch.setattr(sys, "argv", ["ffsite", *args])
        if cwd is not None:
            patch.chdir(cwd)
        for key, value in (env or {}).items():
            if value is None:
                patch.delenv(key, raising=False)
            else:
                patch.setenv(key, value)
        try:
            main()
            status = 0
        except SystemExit as exc:
            status = exc.code
    return subprocess.CompletedProcess(["ffsite", *args], status, out.getvalue(),
                                       err.getvalue())
