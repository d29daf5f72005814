"""Bad input to every command: a corrupt or truncated Parquet file, another format
version, an empty folder, an unknown model, missing or damaged base data, a bad checksum,
a full disk, a port in use.

Each case runs `ffsite ...` in a copy of one workspace and checks that the command exits
with status 1 and one `error:` line (the last on stderr, no traceback) that names the
cause and what to do, and that not one file or folder in the workspace changed: nothing
half-written, no temporary file left, the --out target and the previous site untouched.

The cases run in this process, as the console script runs `ffsite.cli.main` (working
folder, environment and file-size limit set as a fresh process would have them): a fresh
`python -m ffsite` costs 1.5-3.5 s of imports per case.  A few of them (SUBPROCESS) also
run as `python -m ffsite` in a real process, so the entry point, the exit status and the
stderr of a real run are checked on every kind of failure.

A full disk is simulated with RLIMIT_FSIZE: the command runs under a small file-size
limit, so a write past it fails with EFBIG ("File too large") in whichever file the
command writes, as ENOSPC would (Python ignores the SIGXFSZ signal).  This needs no
privileges, unlike mounting a small tmpfs.  In this process the limit is lowered for the
command and raised back after it (an unprivileged process may raise its soft limit up to
the hard one).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import tiny_base
from browser import PagesServer
from site_fixture import REPO, write_content, write_tiny, write_tiny_texts

from ffsite.cli import main
from ffsite.datasets.texts import read_texts
from ffsite.format.read import read_annotations, vote_rows
from ffsite.importers.annotated_pairs import to_annotated_pairs
from ffsite.site.build import build_site

# Runs the CLI under a file-size limit given as the first argument.
LIMITED = ("import resource, sys; limit = int(sys.argv.pop(1)); "
           "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)); "
           "from ffsite.cli import main; sys.argv[0] = 'ffsite'; main()")
DOWNLOAD = random.Random(7).randbytes(100_000)  # what the test server offers for fetch
FULL = ["File too large", "free some space"]


@dataclass(frozen=True)
class Case:
    id: str
    args: str  # split on spaces after {placeholders} are filled in
    needles: tuple[str, ...]  # the error line must contain each
    fsize: int | None = None  # bytes: the simulated full disk
    env: tuple[tuple[str, str], ...] = ()  # variables set for the command


CASES = [
    # build: the previous site in site/ must survive every failure.
    Case("build-corrupt", "build --annotations corrupt {site}", (
        "corrupt/bad.parquet", "not a readable Parquet file", "re-export")),
    Case("build-truncated", "build --annotations truncated {site}", (
        "truncated/tiny.parquet", "not a readable Parquet file")),
    Case("build-version", "build --annotations v99 {site}", (
        "v99/tiny.parquet", "format_version 99", "upgrade ffsite")),
    Case("build-empty", "build --annotations empty {site}", (
        "empty", "no annotation files", "--annotations")),
    Case("build-unknown-reference", "build --annotations annotations --content "
         "content-nobody --templates {templates} --out site --quiet", (
             "site.toml", "nobody")),
    Case("build-missing-base-data", "build --annotations annotations {site} --base-data "
         "nowhere", ("base data nowhere", "no such folder", "--base-data")),
    Case("build-missing-base-data-env", "build --annotations annotations {site}", (
        "base data nowhere", "no such folder", "from FFSITE_BASE_DATA"),
         env=(("FFSITE_BASE_DATA", "nowhere"),)),
    Case("build-out-under-a-file", "build --annotations annotations --content content "
         "--templates {templates} --out inputs/pairs.json/site --quiet", (
             "--out inputs/pairs.json/site", "cannot create", "pick another --out")),
    # --force: the workspace's site may be current already, and then nothing is written.
    Case("build-full-disk", "build --annotations annotations {site} --force",
         (*FULL, "site"), fsize=16_000),
    # serve builds first: the same failures, and the port.
    # (--out is a new folder: a build before the port check would show up as a change.)
    Case("serve-port-in-use", "serve --port {busy_port} --no-watch --annotations annotations "
         "{site_options}-new", ("port {busy_port}", "already in use", "--port")),
    Case("serve-corrupt", "serve --port 0 --no-watch --annotations corrupt {site_options}", (
        "corrupt/bad.parquet", "not a readable Parquet file")),
    Case("serve-full-disk", "serve --port 0 --no-watch --annotations annotations --force "
         "{site_options}", FULL, fsize=16_000),
    Case("serve-missing-base-data", "serve --port 0 --no-watch --annotations annotations "
         "--base-data nowhere {site_options}", ("base data nowhere", "no such folder",
                                                "--base-data")),
    # validate, metrics, ratings, export read annotations.
    Case("validate-corrupt", "validate corrupt", ("corrupt/bad.parquet", "re-export")),
    Case("validate-truncated", "validate truncated", ("truncated/tiny.parquet",)),
    Case("validate-version", "validate v99", ("format_version 99", "upgrade ffsite")),
    Case("validate-empty", "validate empty", ("no annotation files", "give")),
    # upgrade: a file it cannot rewrite stays as it was.
    Case("upgrade-corrupt", "upgrade corrupt", ("corrupt/bad.parquet", "re-export")),
    Case("upgrade-truncated", "upgrade truncated", ("truncated/tiny.parquet",)),
    Case("upgrade-version", "upgrade v99", ("format_version 99", "upgrade ffsite")),
    Case("upgrade-empty", "upgrade empty", ("no annotation files", "give")),
    Case("upgrade-full-disk", "upgrade v1", (*FULL, "v1/tiny.parquet"), fsize=512),
    Case("metrics-corrupt", "metrics corrupt", ("corrupt/bad.parquet", "re-export")),
    Case("metrics-version", "metrics v99", ("format_version 99", "upgrade ffsite")),
    Case("metrics-empty", "metrics empty", ("no annotation files", "empty", "give")),
    Case("metrics-unknown-target", "metrics annotations --against model:nobody", (
        "model 'nobody'", "use one of", "m1")),
    Case("metrics-unknown-reference", "metrics annotations --against model:m1 "
         "--reference-models nobody", ("model 'nobody'", "use one of")),
    Case("metrics-reference-without-model", "metrics annotations --reference-models m1", (
        "--reference-models", "--against model:NAME")),
    Case("metrics-unknown-dataset", "metrics annotations --dataset nobody", (
        "dataset 'nobody'", "use one of", "d")),
    Case("metrics-unknown-preference-judge", "metrics annotations --against "
         "preference:nobody", ("preference judge 'nobody'", "known", "pj")),
    Case("metrics-unknown-judge", "metrics annotations --judge nobody", (
        "trait judge 'nobody'", "known", "j")),
    Case("ratings-corrupt", "ratings corrupt --anchor R", ("corrupt/bad.parquet",)),
    Case("ratings-version", "ratings v99 --anchor R", ("format_version 99",)),
    Case("ratings-empty", "ratings empty --anchor R", ("no annotation files",)),
    Case("ratings-unknown-anchor", "ratings annotations --anchor nobody", (
        "anchor model 'nobody'", "--anchor", "m1")),
    Case("export-corrupt", "export annotated-pairs corrupt --out out/previous.json", (
        "corrupt/bad.parquet",)),
    Case("export-empty", "export annotated-pairs empty --out out/previous.json", (
        "no annotation files",)),
    Case("export-full-disk", "export annotated-pairs annotations --out out/previous.json",
         (*FULL, "out/previous.json"), fsize=512),
    Case("export-missing-base-data", "export annotated-pairs annotations --out "
         "out/previous.json --base-data nowhere", ("base data nowhere", "no such folder",
                                                   "--base-data")),
    Case("export-missing-base-data-env", "export annotated-pairs annotations --out "
         "out/previous.json", ("base data nowhere", "no such folder", "from FFSITE_BASE_DATA"),
         env=(("FFSITE_BASE_DATA", "nowhere"),)),
    Case("export-base-data-without-texts", "export annotated-pairs annotations --out "
         "out/previous.json --base-data empty", ("no texts for dataset 'd'", "ffsite fetch")),
    # import, each kind: a broken input, and a full disk while writing --out.
    Case("import-pairs-truncated", "import annotated-pairs inputs/truncated.json "
         "--out out/previous.parquet", ("inputs/truncated.json", "not valid JSON")),
    Case("import-pairs-missing", "import annotated-pairs inputs/nowhere.json "
         "--out out/previous.parquet", ("inputs/nowhere.json", "no such file", "path")),
    Case("import-pairs-version", "import annotated-pairs inputs/version9.json "
         "--out out/previous.parquet", ("version 9.0", "not supported", "format 2.0")),
    Case("import-pairs-full-disk", "import annotated-pairs inputs/pairs.json "
         "--out out/previous.parquet", (*FULL, "out/previous.parquet"), fsize=512),
    # The votes fit, their texts do not: neither file may change.
    Case("import-pairs-texts-full-disk", "import annotated-pairs inputs/long-texts.json "
         "--out out/previous.parquet --base-out base", (*FULL, "texts.parquet"), fsize=40_000),
    Case("import-icai-columns", "import icai-csv inputs/columns.csv --out out/previous.parquet",
         ("inputs/columns.csv", "text_a", "is missing")),
    Case("import-icai-truncated", "import icai-csv inputs/truncated.csv "
         "--out out/previous.parquet", ("inputs/truncated.csv", "not a readable CSV")),
    Case("import-icai-full-disk", "import icai-csv inputs/pairs.csv --out out/previous.parquet",
         FULL, fsize=512),
    Case("import-alpaca-unknown-reference", "import alpaca-eval tb/alpaca_eval --reference "
         "nobody --out out/previous.parquet", ("--reference nobody", "known models")),
    Case("import-alpaca-missing", "import alpaca-eval nowhere --out out/previous.parquet", (
        "nowhere", "no model outputs", "ffsite fetch")),
    Case("import-alpaca-corrupt", "import alpaca-eval tb-bad/alpaca_eval "
         "--out out/previous.parquet", ("wordy.json", "not valid JSON", "fetch it again")),
    Case("import-alpaca-full-disk", "import alpaca-eval tb/alpaca_eval "
         "--out out/previous.parquet", FULL, fsize=512),
    Case("import-hh-truncated", "import hh-rlhf inputs/truncated.jsonl.gz "
         "--out out/previous.parquet", ("inputs/truncated.jsonl.gz", "fetch it again")),
    Case("import-hh-full-disk", "import hh-rlhf tb/hh_rlhf/harmless-base-test.jsonl.gz "
         "--out out/previous.parquet", FULL, fsize=512),
    # annotate: the dry run and the rules judge need no API.
    Case("annotate-dry-run-no-base-data", "annotate --model new --judge j --dry-run "
         "--out out/previous.parquet", ("no base data", "--base-data")),
    Case("annotate-dry-run-unknown-reference", "annotate --model new --judge j --dry-run "
         "--base-data tb --reference nobody --out out/previous.parquet", (
             "--reference nobody", "known models")),
    Case("annotate-rules-corrupt", "annotate --judge rules --dataset d --annotations corrupt "
         "--base-data base --out out/previous.parquet", ("corrupt/bad.parquet",)),
    Case("annotate-rules-empty", "annotate --judge rules --dataset d --annotations empty "
         "--base-data base --out out/previous.parquet", ("no annotation files",)),
    Case("annotate-rules-unknown-dataset", "annotate --judge rules --dataset nobody "
         "--annotations annotations --base-data base --out out/previous.parquet", (
             "dataset 'nobody'", "import it first")),
    Case("annotate-rules-no-base-data", "annotate --judge rules --dataset d --annotations "
         "annotations --out out/previous.parquet", ("base dataset d", "ffsite fetch")),
    Case("annotate-rules-missing-base-data", "annotate --judge rules --dataset d --annotations "
         "annotations --base-data nowhere --out out/previous.parquet", (
             "base data nowhere", "no such folder", "--base-data")),
    Case("annotate-missing-base-data-env", "annotate --model new --judge j --dry-run "
         "--out out/previous.parquet", ("base data nowhere", "no such folder",
                                        "from FFSITE_BASE_DATA"),
         env=(("FFSITE_BASE_DATA", "nowhere"),)),
    Case("annotate-log-in-a-missing-folder", "annotate --model new --judge j --dry-run "
         "--base-data tb --log nowhere/log.txt --out out/previous.parquet", (
             "--log nowhere/log.txt", "cannot open", "create its folder")),
    Case("annotate-rules-full-disk", "annotate --judge rules --dataset d --annotations "
         "annotations --base-data base --out out/previous.parquet", FULL, fsize=512),
    # fetch: cache/x/f.bin holds an old copy that must stay as it is.
    Case("fetch-bad-checksum", "fetch x --sources bad-sum.toml --cache-dir cache", (
        "x/f.bin", "checksum mismatch", "was deleted", "fix the declaration")),
    Case("fetch-full-disk", "fetch x --sources sources.toml --cache-dir cache", (
        *FULL, "cache/x/f.bin", "partial file was deleted"), fsize=4096),
    Case("fetch-check-damaged", "fetch x --sources sources.toml --check copy", (
        "copy/x/f.bin", "does not match", "ffsite fetch")),
    Case("fetch-check-missing", "fetch x --sources sources.toml --check empty", (
        "empty/x/f.bin", "missing", "ffsite fetch")),
    Case("fetch-undeclared", "fetch nobody --sources sources.toml --cache-dir cache", (
        "'nobody' is not declared", "x")),
    Case("fetch-no-declaration", "fetch --sources nowhere.toml --cache-dir cache", (
        "nowhere.toml", "not found", "--sources")),
    Case("fetch-undeclared-by-any-dataset", "fetch nobody --cache-dir cache", (
        "'nobody' is not declared", "alpaca_eval, behavioral_profiling, eqbench3, hh_rlhf")),
    # default-annotations: defaults/ holds the previous files.
    Case("defaults-no-base-data", "default-annotations --out defaults", (
        "no base data", "--base-data")),
    Case("defaults-missing-base-data", "default-annotations --base-data nowhere "
         "--out defaults", ("base data nowhere", "no such folder", "--base-data")),
    Case("defaults-empty-base-data", "default-annotations --base-data empty "
         "--out defaults", ("empty", "none of the base datasets", "ffsite fetch")),
    Case("defaults-corrupt-base-data", "default-annotations --base-data tb-bad "
         "--out defaults", ("wordy.json", "not valid JSON", "fetch it again")),
    Case("defaults-full-disk", "default-annotations --base-data tb --out defaults",
         (*FULL, "defaults/alpaca_eval/preferences.parquet"), fsize=512),
]


# --------------------------------------------------------------------------- workspace

def write_workspace(root: Path, url: str) -> None:
    """Everything the cases read, and the outputs they must leave alone."""
    tiny = write_tiny(root / "annotations")
    data = tiny.read_bytes()
    (root / "corrupt").mkdir()
    (root / "corrupt" / "bad.parquet").write_bytes(b"PAR1" + b"\x00garbage" * 20 + b"PAR1")
    (root / "truncated").mkdir()
    (root / "truncated" / "tiny.parquet").write_bytes(data[:len(data) // 2])
    (root / "v99").mkdir()
    table = pq.read_table(tiny)
    metadata = dict(table.schema.metadata)
    document = json.loads(metadata[b"ffsite"])
    metadata[b"ffsite"] = json.dumps({**document, "format_version": "99"}).encode()
    pq.write_table(table.replace_schema_metadata(metadata), root / "v99" / "tiny.parquet")
    (root / "v1").mkdir()  # the same votes as older ffsite wrote them: one row per vote
    old = {key: value for key, value in document.items() if key != "vote_columns"}
    pq.write_table(vote_rows(tiny).replace_schema_metadata(
        {b"ffsite": json.dumps({**old, "format_version": "1"})}), root / "v1" / "tiny.parquet")
    (root / "empty").mkdir()

    write_content(root / "content")
    write_content(root / "content-nobody", reference_model="nobody")
    write_tiny_texts(root / "base")
    build_site(root / "annotations", root / "site", content=root / "content",
               templates=REPO / "templates")  # the previous site

    tiny_base.write_alpaca_eval(root / "tb")
    tiny_base.write_hh_rlhf(root / "tb")
    shutil.copytree(root / "tb", root / "tb-bad")
    wordy = root / "tb-bad" / "alpaca_eval" / "model_outputs" / "wordy.json"
    wordy.write_text(wordy.read_text("utf-8")[:50], "utf-8")

    inputs = root / "inputs"
    inputs.mkdir()
    pairs = to_annotated_pairs(read_annotations([tiny]),
                               texts={"d": read_texts(root / "base", "d")})
    (inputs / "pairs.json").write_text(json.dumps(pairs), "utf-8")
    (inputs / "truncated.json").write_text(json.dumps(pairs)[:200], "utf-8")
    # Texts that do not compress, so the texts file is far larger than the votes file.
    noise = random.Random(3)
    for comparison in pairs["comparisons"]:
        for side in ("response_a", "response_b"):
            comparison[side]["text"] = noise.randbytes(8_000).hex()
    (inputs / "long-texts.json").write_text(json.dumps(pairs), "utf-8")
    pairs["metadata"]["version"] = "9.0"
    (inputs / "version9.json").write_text(json.dumps(pairs), "utf-8")
    (inputs / "pairs.csv").write_text("text_a,text_b,preferred_text\n" + "".join(
        f"answer {i} one,answer {i} two,text_a\n" for i in range(50)), "utf-8")
    (inputs / "columns.csv").write_text("a,b\n1,2\n", "utf-8")
    (inputs / "truncated.csv").write_text('text_a,text_b,preferred_text\n"open', "utf-8")
    hh = (root / "tb" / "hh_rlhf" / "harmless-base-test.jsonl.gz").read_bytes()
    (inputs / "truncated.jsonl.gz").write_bytes(hh[:len(hh) // 2])

    (root / "out").mkdir()
    (root / "out" / "previous.parquet").write_bytes(data)
    (root / "out" / "previous.json").write_text('{"previous": true}\n', "utf-8")
    (root / "defaults" / "alpaca_eval").mkdir(parents=True)
    (root / "defaults" / "alpaca_eval" / "preferences.parquet").write_bytes(data)

    (root / "served").mkdir()
    (root / "served" / "f.bin").write_bytes(DOWNLOAD)
    for name, digest in [("sources.toml", hashlib.sha256(DOWNLOAD).hexdigest()),
                         ("bad-sum.toml", hashlib.sha256(b"something else").hexdigest())]:
        (root / name).write_text(f'[x]\n[[x.files]]\npath = "f.bin"\nurl = "{url}f.bin"\n'
                                 f'sha256 = "{digest}"\n', "utf-8")
    for folder in ("cache", "copy"):
        (root / folder / "x").mkdir(parents=True)
        (root / folder / "x" / "f.bin").write_bytes(DOWNLOAD[:-1] + b"!")  # an old copy


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (with its bytes) and folder (None) under `root`, hidden ones too."""
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None
            for p in sorted(root.rglob("*"))}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad-input") / "workspace"
    root.mkdir()
    server = PagesServer(root / "served", prefix="/")
    write_workspace(root, server.root)
    with socket.socket() as busy:  # a port some other program listens on
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        yield root, busy.getsockname()[1]
    server.close()


# Cases that also run in a real `python -m ffsite` process: a build, a full disk (limit
# set before ffsite is imported), an importer, a port in use, a download.
SUBPROCESS = ("build-corrupt", "build-full-disk", "validate-version", "import-pairs-truncated",
              "serve-port-in-use", "fetch-full-disk", "annotate-missing-base-data-env")


def run(args: list[str], cwd: Path, home: Path, fsize: int | None,
        variables: tuple[tuple[str, str], ...] = ()) -> subprocess.CompletedProcess:
    """`python -m ffsite ARGS` in a fresh process (under the file-size limit `fsize`)."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("FFSITE_BASE_DATA", "SOURCE_DATE_EPOCH")}
    env.update(variables)
    # No bytecode or caches written by the command itself (they would count as changes).
    env.update(PYTHONDONTWRITEBYTECODE="1", XDG_CACHE_HOME=str(home), HOME=str(home))
    command = [sys.executable, "-c", LIMITED, str(fsize)] if fsize else [
        sys.executable, "-m", "ffsite"]
    return subprocess.run([*command, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@contextlib.contextmanager
def file_size_limit(limit: int | None):
    """Writes past `limit` bytes fail with EFBIG in this process while the block runs."""
    if limit is None:
        yield
        return
    assert signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN  # EFBIG, not a killed process
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def run_in_this_process(args: list[str], cwd: Path, home: Path, fsize: int | None,
                        variables: tuple[tuple[str, str], ...], monkeypatch,
                        capsys) -> subprocess.CompletedProcess:
    """`ffsite ARGS` in this process, with what `run` gives a fresh process: the working
    folder, the environment, no bytecode written, the file-size limit."""
    from ffsite.site import serve as preview

    def no_serving(server, *args, **kwargs):  # a build that should fail did not
        raise AssertionError("ffsite serve built the site and started serving")

    monkeypatch.chdir(cwd)
    for key in ("FFSITE_BASE_DATA", "SOURCE_DATE_EPOCH"):
        monkeypatch.delenv(key, raising=False)
    for key, value in (*variables, ("XDG_CACHE_HOME", str(home)), ("HOME", str(home))):
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "argv", ["ffsite", *args])
    monkeypatch.setattr(preview.http.server.ThreadingHTTPServer, "serve_forever", no_serving)
    capsys.readouterr()
    with file_size_limit(fsize):
        try:
            main()
            status = 0
        except SystemExit as exc:
            status = exc.code
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, captured.out, captured.err)


def test_the_limit_in_this_process_fails_a_write_and_is_lifted_after(tmp_path):
    with file_size_limit(100), pytest.raises(OSError) as raised, \
            open(tmp_path / "big", "wb") as big:
        big.write(b"x" * 1000)
        big.flush()
    assert raised.value.errno == errno.EFBIG
    assert (tmp_path / "big").stat().st_size == 100
    (tmp_path / "big").write_bytes(b"x" * 100_000)  # no limit any more
    assert (tmp_path / "big").stat().st_size == 100_000


PARAMS = [pytest.param(case, "here", id=case.id) for case in CASES] + [
    pytest.param(case, "process", id=f"{case.id}-process", marks=pytest.mark.slow)
    for case in CASES if case.id in SUBPROCESS]  # slow: the same checks, in a fresh process


@pytest.mark.parametrize(("case", "where"), PARAMS)
def test_bad_input_fails_cleanly(case, where, workspace, tmp_path, monkeypatch, capsys):
    template, busy_port = workspace
    root = tmp_path / "workspace"
    shutil.copytree(template, root, symlinks=True)
    site = f"--content content --templates {REPO / 'templates'} --out site"
    fill = {"templates": REPO / "templates", "busy_port": busy_port, "site": site + " --quiet",
            "site_options": "--prefix /ffsite/ " + site}
    args = case.args.format(**fill).split()
    before = snapshot(root)
    if where == "process":
        done = run(args, root, tmp_path / "home", case.fsize, case.env)
    else:
        done = run_in_this_process(args, root, tmp_path / "home", case.fsize, case.env,
                                   monkeypatch, capsys)
    lines = done.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert len(errors) == 1 and lines[-1] == errors[0], done.stderr
    needles = [needle.format(**fill) for needle in case.needles]
    assert [n for n in needles if n not in errors[0]] == [], errors[0]
    assert snapshot(root) == before  # nothing written, nothing left, nothing replaced


def test_the_simulated_full_disk_is_a_real_write_error(tmp_path):
    """The limit makes an ordinary write fail with EFBIG, not kill the process."""
    code = ("import resource, errno; resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))\n"
            "try:\n    with open('big', 'wb') as f:\n        f.write(b'x' * 1000)\n"
            "except OSError as e:\n    print(errno.errorcode[e.errno])")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == "EFBIG" and done.returncode == 0
    assert (tmp_path / "big").stat().st_size == 100


def test_the_subprocess_cases_are_cases():
    assert set(SUBPROCESS) <= {case.id for case in CASES}
    assert {case.id.split("-")[0] for case in CASES if case.id in SUBPROCESS} == {
        "build", "validate", "import", "serve", "fetch", "annotate"}


def test_every_command_has_a_case():
    commands = {case.args.split()[0] for case in CASES}
    imports = {case.args.split()[1] for case in CASES if case.args.startswith("import ")}
    assert commands == {"build", "serve", "validate", "upgrade", "metrics", "ratings", "import",
                        "export", "annotate", "fetch", "default-annotations"}
    assert imports == {"annotated-pairs", "icai-csv", "alpaca-eval", "hh-rlhf"}
