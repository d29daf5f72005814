"""The site's settings: `content/site.toml`, read by ffsite._read and checked key by key.

The keys, their types and defaults are the fields of `SiteConfig`: a new setting is one
field there.
"""

from __future__ import annotations

import os
import types
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import get_args, get_type_hints

from ffsite._read import read_toml
from ffsite._text import text_problem
from ffsite.errors import FfsiteError, ParameterError

CONFIG_FILE = "site.toml"
AT_LEAST_ONE = {"min": 1}  # field metadata: the smallest value the key may take


@dataclass(frozen=True)
class SiteConfig:
    """What `content/site.toml` may set; every key is optional."""

    content_dir: Path
    title: str = "ffsite"
    # What the site is, in a sentence: the description (and link preview) of the home page
    # and of any page that has none of its own.
    description: str = ("An AI model personality leaderboard: which traits each model shows "
                        "more or less than others, with 95% intervals.")
    # The model every other model is compared with on the leaderboard; None compares each
    # model with all others.
    reference_model: str | None = None
    # A cell with fewer valid (A/B) votes than this is shown, but not coloured as a finding.
    min_valid_votes: int = field(default=10, metadata=AT_LEAST_ONE)
    # Where the site lives (e.g. "/ffsite/" or "https://x.github.io/ffsite/").  The 404 page
    # is served at any depth, so only it needs an absolute base for its links.
    base_url: str | None = None
    # Show example pairs on model pages when the base-data texts are available.
    examples: bool = True
    # Bootstrap resamples behind each Elo rating's 95% interval (issue 6: 1,000).
    rating_resamples: int = field(default=1000, metadata=AT_LEAST_ONE)
    # Bootstrap refits behind each EigenBench interval (each refit from the full fit and
    # from a cold start: docs/eigenbench.md); `ffsite eigenbench fit`'s default too.
    eigenbench_resamples: int = field(default=200, metadata=AT_LEAST_ONE)
    # Fixed at Elo 1000 in the ratings of datasets without reference_model (EQ-Bench 3,
    # Behavioral Profiling); None: the model each such dataset compares most often.
    anchor_model: str | None = None

    def markdown_file(self, name: str) -> Path:
        return self.content_dir / name


@dataclass(frozen=True)
class _Key:
    """One key of site.toml, as its SiteConfig field declares it."""

    type: type  # the TOML value's type
    optional: bool  # may be unset (None); an empty string unsets it, as TOML has no null
    least: int | None  # the smallest value allowed, if any


def _keys() -> dict[str, _Key]:
    hints = get_type_hints(SiteConfig)
    keys = {}
    for config_field in fields(SiteConfig):
        if config_field.name == "content_dir":  # where the file is, not a setting in it
            continue
        hint = hints[config_field.name]
        optional = isinstance(hint, types.UnionType) and type(None) in get_args(hint)
        value_type = next(t for t in get_args(hint) if t is not type(None)) if optional else hint
        keys[config_field.name] = _Key(value_type, optional, config_field.metadata.get("min"))
    return keys


def load_config(content: str | os.PathLike) -> SiteConfig:
    """Read `<content>/site.toml`; raise FfsiteError naming the key on any mistake."""
    content_dir = Path(content)
    path = content_dir / CONFIG_FILE
    if not content_dir.is_dir():
        raise ParameterError(f"{content_dir}: no such content folder; run from the repository "
                             "root or pass {content} DIR", "content")
    if not path.is_file():
        raise FfsiteError(f"{path}: missing; the content folder needs a site.toml "
                          "(title, reference_model, min_valid_votes)")
    raw = read_toml(path)
    keys = _keys()
    for name, value in raw.items():
        if name not in keys:
            raise FfsiteError(f"{path}: unknown key '{name}'; allowed: " + ", ".join(keys))
        expected = keys[name].type
        if type(value) is not expected:
            raise FfsiteError(f"{path}: key '{name}' must be a {expected.__name__}, "
                              f"not {type(value).__name__}")
        problem = text_problem(value, one_line=True)  # it reaches every page
        if problem:
            raise FfsiteError(f"{path}: key '{name}': {problem}")
    for name, key in keys.items():
        if key.least is not None and raw.get(name, key.least) < key.least:
            raise FfsiteError(f"{path}: key '{name}' must be at least {key.least}")
    settings = {name: (value or None) if keys[name].optional else value
                for name, value in raw.items()}
    base_url = settings.get("base_url")
    if base_url is not None:
        if not base_url.startswith(("/", "https://", "http://")):
            raise FfsiteError(f"{path}: key 'base_url' must start with '/' or 'https://'")
        settings["base_url"] = base_url.rstrip("/") + "/"
    return SiteConfig(content_dir=content_dir, **settings)
