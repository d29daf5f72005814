"""Where the collecting methods' files go: the one place their names are spelled.

By default a method writes its annotation file to `annotations/<folder>/` (`contrib` for
annotate, `contrib/<dataset>` for a protocol run, `eigenbench`, `lmlpa`) and its texts
beside it or, for LMLPA, outside the annotations folder (the site reads every file
there, and texts are base data).  The site finds `<name>.responses.json` beside
`<name>.parquet` through `responses_file`.
"""

from __future__ import annotations

from pathlib import Path

from ffsite._names import safe_name

ANNOTATIONS = Path("annotations")  # the site's annotation files, relative to where it runs
LMLPA_ANSWERS = Path("lmlpa-answers")


def default_out(folder: str, name: str) -> Path:
    """A method's annotation file for `name` (a model, a constitution):
    annotations/<folder>/<safe name>.parquet."""
    return ANNOTATIONS / folder / f"{safe_name(name)}.parquet"


def contribution_out(dataset: str, name: str) -> Path:
    """A protocol run's file for `name` (a model, or a label of several) on `dataset`:
    annotations/contrib/<safe dataset>/<safe name>.parquet."""
    return ANNOTATIONS / "contrib" / safe_name(dataset) / f"{safe_name(name)}.parquet"


def contributions_of(dataset: str) -> Path:
    """The folder of `dataset`'s contributions (their answers are read from here)."""
    return ANNOTATIONS / "contrib" / safe_name(dataset)


def beside(out: Path, suffix: str) -> Path:
    """A file that goes with `out`: its name without .parquet, then `suffix`."""
    return out.with_name(out.name.removesuffix(".parquet") + suffix)


def responses_file(out: Path) -> Path:
    """The models' answers (base data) beside their votes file."""
    return beside(out, ".responses.json")


def communication_file(out: Path) -> Path:
    """The communication traits of a model's answers beside their votes file."""
    return beside(out, ".communication.parquet")


def lmlpa_answers_file(model: str) -> Path:
    """LMLPA's answers of `model`: lmlpa-answers/<safe name>.json."""
    return LMLPA_ANSWERS / f"{safe_name(model)}.json"
