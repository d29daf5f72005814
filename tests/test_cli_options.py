"""The shared CLI options (ffsite/commands/options.py) and how the CLI words library errors.

The library names parameters (`split_by`, `base_data`); the CLI names the flags a user
typed (`--split-by`, `--base-data`).  test_bad_input.py runs every command with a missing
--base-data folder (and FFSITE_BASE_DATA) and checks that nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from helpers import run_main
from site_fixture import write_tiny

from ffsite.cli import COMMANDS, cli
from ffsite.commands import _api, options
from ffsite.datasets import folder as registry
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format.read import read_annotations
from ffsite.metrics.results import metrics_table
from ffsite.site.build import build_site


def all_commands() -> dict[str, click.Command]:
    """Every command by its full name, subcommands of `import` and `export` too."""
    found = {}
    context = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(context, name)
        if isinstance(command, click.Group):
            found.update({f"{name} {sub}": command.commands[sub] for sub in command.commands})
        else:
            found[name] = command
    return found


def test_every_command_takes_the_shared_options():
    commands = all_commands()
    base_data = {name for name, command in commands.items()
                 if any(p.name == "base_data" for p in command.params)}
    assert base_data == {"build", "serve", "annotate", "default-annotations",
                         "export annotated-pairs", "eigenbench run", "protocol run",
                         "protocol show"}
    # Commands that call models take every API option, declared once (commands/_api.py).
    calling = {name: sorted(p.name for p in command.params if p.name in _api._NAMES)
               for name, command in commands.items()
               if any(p.name == "max_cost" for p in command.params)}
    assert set(calling) == {"annotate", "eigenbench run", "lmlpa run", "protocol run"}
    assert all(names == sorted(_api._NAMES) for names in calling.values())
    paths = {name for name, command in commands.items()
             if any(p.name == "paths" for p in command.params)}
    assert paths == {"metrics", "ratings", "scores", "big-five", "upgrade", "validate",
                     "export annotated-pairs", "eigenbench fit"}
    for name, command in commands.items():
        for param in command.params:
            if param.name == "base_data":  # resolved and checked in one place
                assert param.callback is options._resolve_base_data, name
                assert param.opts == ["--base-data"] and f"${registry.ENV}" in param.help
            if param.name == "paths":
                assert param.default == (options.ANNOTATIONS,), name
            if param.name == "out":
                assert param.opts == ["--out"], name
            if param.name == "annotations":
                assert param.default == options.ANNOTATIONS, name


def test_flags_of_library_parameters():
    assert options.flag("out") == "--out"
    assert options.flag("split_by") == "--split-by"
    assert options.flag("reference_models") == "--reference-models"
    assert options.flag("base_dir") == "--base-data"


def test_a_parameter_error_names_the_parameter_in_the_library_and_the_flag_in_the_cli():
    error = ParameterError("{reference_models} only applies with {against} model:NAME",
                           "reference_models", "against")
    assert error.param == "reference_models"
    assert str(error) == "reference_models only applies with against model:NAME"
    assert options.error_line(error) == "--reference-models only applies with --against model:NAME"
    assert options.error_line(FfsiteError("plain {out}")) == "plain {out}"


def test_split_by_error_in_library_and_cli(tmp_path, monkeypatch, capsys):
    write_tiny(tmp_path / "annotations")
    with pytest.raises(ParameterError) as caught:
        metrics_table(read_annotations([tmp_path / "annotations"]), split_by="nope")
    assert caught.value.param == "split_by"
    assert str(caught.value) == "split_by nope: no such column; available: dataset, topic"
    monkeypatch.chdir(tmp_path)
    status, out, err = run_main(monkeypatch, capsys, "metrics", "--split-by", "nope")
    assert (status, out) == (1, "")
    # (available: only what it read; the command reads the columns it needs)
    assert err.startswith("error: --split-by nope: no such column; available: dataset")


def test_build_site_names_its_base_data_parameter(tmp_path):
    with pytest.raises(ParameterError) as caught:
        build_site(tmp_path / "annotations", tmp_path / "site", base_data=tmp_path / "nowhere")
    assert caught.value.param == "base_data"
    assert str(caught.value).startswith(f"base data {tmp_path / 'nowhere'}: no such folder "
                                        "(from base_data); fix the path")
    assert not (tmp_path / "site").exists()


def test_base_data_comes_from_the_option_then_the_environment(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.delenv(registry.ENV, raising=False)
    monkeypatch.delenv("FFSITE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert registry.base_dir(None) is None
    # Then the folder `ffsite fetch` downloads into, once it exists.
    (tmp_path / "cache" / "ffsite" / "base-data").mkdir(parents=True)
    assert registry.base_dir(None) == tmp_path / "cache" / "ffsite" / "base-data"
    (tmp_path / "cache" / "ffsite" / "base-data").rmdir()
    monkeypatch.setenv(registry.ENV, "")
    assert registry.base_dir(None) is None
    monkeypatch.setenv(registry.ENV, str(tmp_path / "b"))
    assert registry.base_dir(None) == tmp_path / "b"
    assert registry.base_dir(tmp_path / "a") == tmp_path / "a"
    monkeypatch.setenv(registry.ENV, str(tmp_path / "nowhere"))
    assert registry.base_dir(tmp_path / "a") == tmp_path / "a"  # the option wins, unchecked env
    with pytest.raises(FfsiteError, match=r"no such folder \(from FFSITE_BASE_DATA\); fix "
                       "or unset FFSITE_BASE_DATA") as caught:
        registry.base_dir(None)
    assert not isinstance(caught.value, ParameterError)  # not a parameter: worded as is


@pytest.mark.parametrize("args", [
    ["build", "--quiet"],
    ["export", "annotated-pairs", "--out", "out.json"],
    ["default-annotations", "--out", "defaults"],
    ["annotate", "--model", "m", "--judge", "j", "--dry-run"],
    ["annotate", "--judge", "rules", "--dataset", "d"],
], ids=lambda args: "-".join(args[:2]))
def test_a_missing_base_data_folder_stops_every_command(args, tmp_path, monkeypatch, capsys):
    write_tiny(tmp_path / "annotations")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(registry.ENV, raising=False)
    before = sorted(Path(".").rglob("*"))
    status, out, err = run_main(monkeypatch, capsys, *args, "--base-data", "nowhere")
    assert (status, out) == (1, "")
    assert err == ("error: base data nowhere: no such folder (from --base-data); fix the path, "
                   "or run ffsite fetch to download the base datasets\n")
    monkeypatch.setenv(registry.ENV, "elsewhere")
    status, out, err = run_main(monkeypatch, capsys, *args)
    assert (status, out) == (1, "")
    assert err == ("error: base data elsewhere: no such folder (from FFSITE_BASE_DATA); fix or "
                   "unset FFSITE_BASE_DATA, or run ffsite fetch to download the base datasets\n")
    assert sorted(Path(".").rglob("*")) == before


def test_help_does_not_check_base_data(monkeypatch, capsys):
    monkeypatch.setenv(registry.ENV, "nowhere")
    status, out, _ = run_main(monkeypatch, capsys, "build", "--help")
    assert status == 0 and "--base-data" in out and "$FFSITE_BASE_DATA" in out


def numeric_options() -> list[tuple[str, str, click.Option]]:
    """(command, flag, option) for every option that takes an integer."""
    return [(name, option.opts[0], option) for name, command in all_commands().items()
            for option in command.params
            if isinstance(option, click.Option) and isinstance(option.type, click.IntRange)
            or isinstance(option, click.Option) and option.type is click.INT]


def test_every_count_and_seed_option_is_bounded_on_both_sides():
    # An unbounded count hangs a run or eats the memory (`--votes 1000000`); a negative
    # seed was a traceback from numpy.
    unbounded = [(name, flag) for name, flag, option in numeric_options()
                 if not isinstance(option.type, click.IntRange)
                 or option.type.min is None or option.type.max is None]
    assert unbounded == []
    assert len(numeric_options()) >= 10


@pytest.mark.parametrize("args", [
    ["ratings", "--seed", "-5"], ["scores", "--seed", str(2**32)],
    ["annotate", "--model", "m", "--judge", "j", "--votes", "1000000"],
    ["annotate", "--model", "m", "--judge", "j", "--concurrency", "100000"],
    ["ratings", "--bootstrap", "10000000"],
])
def test_out_of_range_numbers_are_usage_errors_naming_the_option(args, monkeypatch, capsys):
    status, _, err = run_main(monkeypatch, capsys, *args)
    assert status == 2
    assert f"Invalid value for '{args[-2]}'" in err and "Traceback" not in err


def test_metrics_for_one_judge_works(tmp_path, monkeypatch, capsys):
    write_tiny(tmp_path / "annotations")
    status, out, err = run_main(monkeypatch, capsys, "metrics", str(tmp_path / "annotations"),
                                "--judge", "j", "--format", "csv")
    assert status == 0, err
    assert out.count("\n") == 3 and ",j," in out  # header and the tiny site's two traits
