"""The site's settings: `content/site.toml`, read with tomllib and checked key by key."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ffsite.errors import FfsiteError

CONFIG_FILE = "site.toml"


@dataclass(frozen=True)
class SiteConfig:
    """What `content/site.toml` may set; every key is optional."""

    content_dir: Path
    title: str = "ffsite"
    # The model every other model is compared with on the leaderboard; None compares each
    # model with all others.
    reference_model: str | None = None
    # A cell with fewer valid (A/B) votes than this is shown, but not coloured as a finding.
    min_valid_votes: int = 10
    # Where the site lives (e.g. "/ffsite/" or "https://x.github.io/ffsite/").  The 404 page
    # is served at any depth, so only it needs an absolute base for its links.
    base_url: str | None = None
    # Show example pairs on model pages when the base-data texts are available.
    examples: bool = True
    # Bootstrap resamples behind each Elo rating's 95% interval (issue 6: 1,000).
    rating_resamples: int = 1000

    def markdown_file(self, name: str) -> Path:
        return self.content_dir / name


_TYPES = {"title": str, "reference_model": str, "min_valid_votes": int, "base_url": str,
          "examples": bool, "rating_resamples": int}


def load_config(content_dir: str | Path) -> SiteConfig:
    """Read `<content_dir>/site.toml`; raise FfsiteError naming the key on any mistake."""
    content_dir = Path(content_dir)
    path = content_dir / CONFIG_FILE
    if not content_dir.is_dir():
        raise FfsiteError(f"{content_dir}: no such content folder; run from the repository "
                          "root or pass --content DIR")
    if not path.is_file():
        raise FfsiteError(f"{path}: missing; the content folder needs a site.toml "
                          "(title, reference_model, min_valid_votes)")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise FfsiteError(f"{path}: not valid TOML ({exc}); fix the file") from None
    for key, value in raw.items():
        expected = _TYPES.get(key)
        if expected is None:
            raise FfsiteError(f"{path}: unknown key '{key}'; allowed: " + ", ".join(_TYPES))
        if type(value) is not expected:
            raise FfsiteError(f"{path}: key '{key}' must be a {expected.__name__}, "
                              f"not {type(value).__name__}")
    for key in ("min_valid_votes", "rating_resamples"):
        if raw.get(key, 1) < 1:
            raise FfsiteError(f"{path}: key '{key}' must be at least 1")
    base_url = raw.get("base_url") or None
    if base_url is not None:
        if not base_url.startswith(("/", "https://", "http://")):
            raise FfsiteError(f"{path}: key 'base_url' must start with '/' or 'https://'")
        base_url = base_url.rstrip("/") + "/"
    return SiteConfig(content_dir=content_dir, title=raw.get("title", "ffsite"),
                      reference_model=raw.get("reference_model") or None,
                      min_valid_votes=raw.get("min_valid_votes", 10), base_url=base_url,
                      examples=raw.get("examples", True),
                      rating_resamples=raw.get("rating_resamples", 1000))
