"""content/site.toml: defaults, types and every error of load_config."""

from __future__ import annotations

from pathlib import Path

import pytest

from ffsite.errors import FfsiteError, ParameterError
from ffsite.site.config import SiteConfig, load_config

REPO = Path(__file__).resolve().parents[1]


def config_of(tmp_path: Path, text: str) -> SiteConfig:
    (tmp_path / "site.toml").write_text(text, "utf-8")
    return load_config(tmp_path)


def test_an_empty_file_gives_the_defaults(tmp_path):
    assert config_of(tmp_path, "") == SiteConfig(
        content_dir=tmp_path, title="ffsite", reference_model=None, min_valid_votes=10,
        base_url=None, examples=True, rating_resamples=1000, eigenbench_resamples=200)


def test_every_key_is_read(tmp_path):
    config = config_of(tmp_path, 'title = "T"\nreference_model = "R"\nmin_valid_votes = 3\n'
                       'base_url = "https://x.org/site"\nexamples = false\n'
                       'rating_resamples = 20\neigenbench_resamples = 40\n')
    assert config == SiteConfig(content_dir=tmp_path, title="T", reference_model="R",
                                min_valid_votes=3, base_url="https://x.org/site/",
                                examples=False, rating_resamples=20, eigenbench_resamples=40)


def test_empty_strings_of_optional_keys_mean_unset(tmp_path):
    config = config_of(tmp_path, 'reference_model = ""\nbase_url = ""\ntitle = ""\n')
    assert (config.reference_model, config.base_url, config.title) == (None, None, "")


def test_the_repository_settings_load():
    config = load_config(REPO / "content")
    assert config.reference_model == "gpt4_1106_preview" and config.base_url == "/ffsite/"


@pytest.mark.parametrize(("text", "message"), [
    ('reference_modle = "R"\n', "site.toml: unknown key 'reference_modle'; allowed: title, "
     "description, reference_model, min_valid_votes, base_url, examples, rating_resamples, "
     "eigenbench_resamples, anchor_model"),
    ("title = 3\n", "site.toml: key 'title' must be a str, not int"),
    ('min_valid_votes = "3"\n', "site.toml: key 'min_valid_votes' must be a int, not str"),
    ("min_valid_votes = true\n", "site.toml: key 'min_valid_votes' must be a int, not bool"),
    ("examples = 1\n", "site.toml: key 'examples' must be a bool, not int"),
    ("base_url = 1.5\n", "site.toml: key 'base_url' must be a str, not float"),
    ("min_valid_votes = 0\n", "site.toml: key 'min_valid_votes' must be at least 1"),
    ("rating_resamples = -1\n", "site.toml: key 'rating_resamples' must be at least 1"),
    ("eigenbench_resamples = 0\n", "site.toml: key 'eigenbench_resamples' must be at least 1"),
    ('base_url = "ffsite/"\n', "site.toml: key 'base_url' must start with '/' or 'https://'"),
    ("title = \n", "site.toml: not valid TOML ("),
])
def test_mistakes_name_the_key(tmp_path, text, message):
    with pytest.raises(FfsiteError) as caught:
        config_of(tmp_path, text)
    assert message in str(caught.value)


def test_a_missing_file_or_folder_says_what_to_do(tmp_path):
    with pytest.raises(FfsiteError, match="site.toml: missing; the content folder needs a "
                       r"site.toml \(title, reference_model, min_valid_votes\)"):
        load_config(tmp_path)
    with pytest.raises(ParameterError) as caught:
        load_config(tmp_path / "nowhere")
    assert caught.value.param == "content"
    assert str(caught.value) == (f"{tmp_path / 'nowhere'}: no such content folder; run from "
                                 "the repository root or pass content DIR")
    assert caught.value.worded(lambda name: "--" + name) == (
        f"{tmp_path / 'nowhere'}: no such content folder; run from the repository root or "
        "pass --content DIR")
