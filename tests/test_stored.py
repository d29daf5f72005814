"""ffsite._stored: results kept on disk give exactly what a fresh computation gives, are
found again only for the same inputs and code, and a damaged file is a miss."""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from pathlib import Path

import eigenbench_fixture as fixture
import numpy as np
import pandas as pd
import pytest
from helpers import trait, write_test_votes
from pressure_fixture import build_pressure

from ffsite import _stored
from ffsite.format import read_scores, write_scores
from ffsite.format.read import read_annotations
from ffsite.format.scores import Scores
from ffsite.metrics import eigenbench as eb
from ffsite.metrics.from_scores import mean_differences
from ffsite.metrics.ratings import ratings_table, trait_refits
from ffsite.metrics.results import score_results
from ffsite.models import Model, Registry


def assert_same(left: object, right: object) -> None:
    """Equal to the bit: arrays in dtype, shape and bytes (NaN where NaN), frames in
    columns, dtypes and values, dataclasses field by field."""
    assert type(left) is type(right)
    if isinstance(left, np.ndarray):
        assert left.dtype == right.dtype and left.shape == right.shape
        if left.dtype == object:
            assert left.tolist() == right.tolist()
        else:
            assert left.tobytes() == right.tobytes()
    elif isinstance(left, pd.DataFrame):
        assert list(left.columns) == list(right.columns)
        assert left.columns.dtype == right.columns.dtype
        assert left.index.equals(right.index) and type(left.index) is type(right.index)
        for name in left.columns:
            assert left[name].dtype == right[name].dtype
            assert_same(left[name].to_numpy(dtype=object if left[name].dtype == "str"
                                            else None),
                        right[name].to_numpy(dtype=object if right[name].dtype == "str"
                                             else None))
    elif dataclasses.is_dataclass(left):
        for field in dataclasses.fields(left):
            assert_same(getattr(left, field.name), getattr(right, field.name))
    elif isinstance(left, (list, tuple)):
        assert len(left) == len(right)
        for a, b in zip(left, right, strict=True):
            assert_same(a, b)
    elif isinstance(left, dict):
        assert list(left) == list(right)
        for key in left:
            assert_same(left[key], right[key])
    elif isinstance(left, float) and np.isnan(left):
        assert np.isnan(right)
    else:
        assert left == right


def test_values_come_back_exactly(tmp_path: Path) -> None:
    value = {"frame": pd.DataFrame({"model": ["a", None],  # pandas 3: a `str` column
                                    "kept": pd.Series(["x", "y"], dtype=object),
                                    "elo": [1000.0, np.nan], "n": np.array([3, 4]),
                                    "chosen": [True, False]}),
             "empty": pd.DataFrame({"model": np.zeros(0, dtype=object)}),
             "refits": (np.array(["a"], dtype=object), np.ones((3, 1), np.float32)),
             "scalar": np.float64(0.1), "nan": float("nan"), "count": 7,
             "names": ("x", "y"), "none": None, "flag": True}
    calls = []

    def compute() -> dict:
        calls.append(1)
        return value

    with _stored.kept_in(tmp_path):
        first = _stored.remembered("test", (), (np.arange(3), "a", 1.5), compute)
        again = _stored.remembered("test", (), (np.arange(3), "a", 1.5), compute)
    assert len(calls) == 1
    assert_same(first, value)
    assert_same(again, value)


def test_other_inputs_or_no_build_compute_again(tmp_path: Path) -> None:
    calls = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    with _stored.kept_in(tmp_path):
        assert _stored.remembered("test", (), (np.arange(3),), compute) == 1
        # The same numbers in another dtype are other inputs.
        assert _stored.remembered("test", (), (np.arange(3, dtype=np.int32),), compute) == 2
        assert _stored.remembered("test", (), (np.arange(3),), compute) == 1
    assert _stored.remembered("test", (), (np.arange(3),), compute) == 3  # nothing kept


def test_a_damaged_file_is_computed_again(tmp_path: Path) -> None:
    with _stored.kept_in(tmp_path):
        _stored.remembered("test", (), ("k",), lambda: np.arange(4))
        (stored,) = (tmp_path / "test").glob("*.npz")
        stored.write_bytes(b"not an npz file")
        found = _stored.remembered("test", (), ("k",), lambda: np.arange(5))
        assert found.tolist() == list(range(5))
        assert _stored.remembered("test", (), ("k",), lambda: None).tolist() == list(range(5))


def test_what_cannot_be_kept_exactly_is_not_kept(tmp_path: Path) -> None:
    mixed = pd.DataFrame({"value": np.array(["a", 1], dtype=object)})
    indexed = pd.DataFrame({"value": [1.0]}, index=["x"])
    for value in (mixed, indexed):
        with pytest.raises(_stored.Unstorable):
            _stored.encode(value, {})
    with _stored.kept_in(tmp_path):
        assert _stored.remembered("test", (), ("mixed",), lambda: mixed) is mixed
    assert not list((tmp_path / "test").glob("*.npz"))


def test_a_kept_eigenbench_fit_is_the_fresh_fit(tmp_path: Path) -> None:
    judgments = fixture.simulate(fixture.truth(4, 1, seed=3), 400, seed=7)
    fresh = eb.eigenbench(judgments, n_bootstrap=10)
    with _stored.kept_in(tmp_path):
        eb.eigenbench(judgments, n_bootstrap=10)  # computed and kept
        assert len(list((tmp_path / "eigenbench").glob("*.npz"))) == 1
        kept = eb.eigenbench(judgments, n_bootstrap=10)
        other = eb.eigenbench(judgments, n_bootstrap=11)  # other settings: fitted again
    assert len(list((tmp_path / "eigenbench").glob("*.npz"))) == 2
    assert_same(kept, fresh)
    assert other.n_bootstrap == 11


def test_a_kept_ratings_table_is_the_fresh_table(tmp_path: Path) -> None:
    votes = write_test_votes(tmp_path / "v.parquet", *RATED)
    annotations = read_annotations([votes])
    fresh_refits: dict = {}
    fresh = ratings_table(annotations, anchor="ref", n_bootstrap=50, refits=fresh_refits)
    with _stored.kept_in(tmp_path / "cache"):
        ratings_table(annotations, anchor="ref", n_bootstrap=50, refits={})
        kept_refits: dict = {}
        kept = ratings_table(annotations, anchor="ref", n_bootstrap=50, refits=kept_refits)
        ratings_table(annotations, anchor="ref", n_bootstrap=50)  # no refits: its own
    assert len(list((tmp_path / "cache" / "ratings").glob("*.npz"))) == 2
    assert_same(kept, fresh)
    assert_same(dict(sorted(kept_refits.items())), dict(sorted(fresh_refits.items())))


def test_kept_trait_refits_are_the_fresh_refits(tmp_path: Path) -> None:
    annotations = read_annotations([write_test_votes(tmp_path / "v.parquet", *RATED)])
    verbose = trait("is more verbose")["trait_id"]
    fresh = trait_refits(annotations, verbose, anchor="ref", n_bootstrap=40)
    with _stored.kept_in(tmp_path / "cache"):
        trait_refits(annotations, verbose, anchor="ref", n_bootstrap=40)
        kept = trait_refits(annotations, verbose, anchor="ref", n_bootstrap=40)
    assert len(list((tmp_path / "cache" / "trait-refits").glob("*.npz"))) == 1
    assert_same(kept, fresh)


def test_kept_mean_differences_are_the_fresh_ones(tmp_path: Path) -> None:
    scores = six_prompt_scores(tmp_path)
    fresh = mean_differences(scores, dataset="d", condition="baseline", n_bootstrap=30)
    with _stored.kept_in(tmp_path / "cache"):
        mean_differences(scores, dataset="d", condition="baseline", n_bootstrap=30)
        kept = mean_differences(scores, dataset="d", condition="baseline", n_bootstrap=30)
    assert len(list((tmp_path / "cache" / "mean-differences").glob("*.npz"))) == 1
    assert fresh and list(fresh) == [("warm", "J")]
    assert_same(kept, fresh)


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_a_build_from_kept_results_is_byte_identical(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv("FFSITE_CACHE_DIR", str(tmp_path / "cache"))
    # Built twice from the same folder (the scores name their files: another folder
    # would be other inputs), the second time from the kept results.
    cold = tree(build_pressure(tmp_path / "root"))  # votes and judge scores
    kept = {path.parent.name for path in (tmp_path / "cache" / "results").rglob("*.npz")}
    assert kept == {"ratings", "score-results", "mean-differences"}
    shutil.rmtree(tmp_path / "root" / "site")
    saved = []
    monkeypatch.setattr(_stored, "_save", lambda path, value: saved.append(path))
    warm = tree(build_pressure(tmp_path / "root"))
    assert saved == []  # every result was found
    assert warm.keys() == cold.keys()
    assert [name for name in cold if cold[name] != warm[name]] == []


def six_prompt_scores(folder: Path) -> Scores:
    """Four models' scores on six prompts (enough for ratings), one judge, one trait."""
    rows = [{"dataset": "d", "response_id": f"{m}/{p}", "prompt_id": p, "model": m,
             "condition": "baseline", "judge": "J", "trait_id": "warm", "trait": "Warmth",
             "trait_set": "s", "scale_min": 1, "scale_max": 10, "seed": None,
             "score": float((ord(m) * 7 + int(p[1:]) * 3) % 10 + 1)}
            for m in "abcd" for p in ("p1", "p2", "p3", "p4", "p5", "p6")]
    write_scores(pd.DataFrame(rows), folder / "d.parquet")
    return read_scores([folder / "d.parquet"])


def test_kept_score_results_are_the_fresh_results(tmp_path: Path) -> None:
    fresh = score_results(six_prompt_scores(tmp_path), n_bootstrap=50)
    assert len(fresh.ratings)  # six prompts: rated too
    arrays: dict = {}
    assert_same(_stored.decode(_stored.encode(fresh, arrays), arrays), fresh)


def test_inputs_hash_by_every_difference_that_could_matter() -> None:
    frame = pd.DataFrame({"model": ["a", "b"], "score": [1.0, 2.0]})
    same = pd.DataFrame({"model": ["a", "b"], "score": [1.0, 2.0]})
    assert _stored.digest(frame) == _stored.digest(same)
    others = [
        frame.astype({"model": object}),  # the same text in another dtype
        frame.astype({"score": np.float32}),
        frame.assign(model=["a", None]),
        frame.assign(model=["a", "c"]),
        frame.assign(score=[1.0, -2.0]),
        frame.rename(columns={"score": "value"}),
        frame.set_axis([1, 2]),
        frame.assign(model=pd.Categorical(["a", "b"], categories=["a", "b", "c"])),
        frame.assign(model=pd.Categorical(["a", "b"], categories=["b", "a"])),
    ]
    hashes = {_stored.digest(frame), *(_stored.digest(other) for other in others)}
    assert len(hashes) == len(others) + 1
    object_text = pd.Series(["1", None], dtype=object)
    assert _stored.digest(object_text) != _stored.digest(pd.Series([1, None], dtype=object))
    assert _stored.digest(pd.Series([np.float64(1.5)], dtype=object)) != _stored.digest(
        pd.Series([1.5], dtype=object))  # numpy scalars are told apart from floats


def test_a_registry_read_from_another_path_is_the_same_input() -> None:
    # Its path names the file in messages; the same models read from another folder (a
    # copied content folder, or the same one by an absolute path) must find the results
    # kept from the first: the score results were computed again on every such build.
    model = Model(id="lab/m", name="M", aliases={"bp": ("m",)})
    here, there = (Registry((model,), Path(p)) for p in ("content/models.toml",
                                                        "/elsewhere/content/models.toml"))
    assert _stored.digest(here) == _stored.digest(there) and here == there
    other = Registry((dataclasses.replace(model, name="M 2"),), Path("content/models.toml"))
    assert _stored.digest(other) != _stored.digest(here)


def test_a_package_code_version_reads_every_module_under_it(tmp_path: Path) -> None:
    import ffsite.metrics
    from ffsite.metrics import ranking
    assert _stored.code_version((ffsite.metrics,)) != _stored.code_version((ranking,))


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".ffsite-inputs"}


RATED = ([{"comparison_id": f"c{i}", "model_a": a, "model_b": b}
          for i, (a, b) in enumerate([("ref", "m1"), ("m1", "m2"), ("ref", "m2"),
                                      ("m2", "ref"), ("m1", "ref"), ("ref", "m1")])],
         [{"comparison_id": f"c{i}", **trait("is more verbose"), "judge": "j", "vote": v}
          for i, v in enumerate(["A", "B", "tie", "A", "A", "B"])])


def test_results_unused_for_a_month_are_removed_when_a_build_ends(tmp_path: Path) -> None:
    month_ago = time.time() - 31 * 86400
    with _stored.kept_in(tmp_path):
        _stored.remembered("test", (), ("read",), lambda: np.arange(2))
        _stored.remembered("test", (), ("unused",), lambda: np.arange(3))
        read, unused = (next(p for p in (tmp_path / "test").glob("*.npz")
                             if _stored._load(p).tolist() == list(range(n))) for n in (2, 3))
        for path in (read, unused):
            os.utime(path, (month_ago, month_ago))
        _stored.remembered("test", (), ("read",), lambda: None)  # a hit: touched
    assert read.is_file()
    assert not unused.exists()
