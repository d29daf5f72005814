"""The API layer every collecting method calls models through.

- `client.py`: an OpenAI-compatible chat-completions client: lanes (concurrency),
  retries with backoff, the key kept out of every text (`Endpoint.redact`);
- `cache.py`: answered calls on disk, one file per call key;
- `cost.py`: prices, what an answer cost, the run's tally; `budget.py`: the budget;
- `calls.py`: a batch of calls through cache, budget and client;
- `session.py`: `Api` (a run's settings), `Session` (one client, cache and budget for a
  run), `Phase` (a batch's outcomes), `run_sync`;
- `estimate.py`: a dry run's line per model and step.

Methods import what they use from here, not from the modules.
"""

from ffsite.collect.api.cache import Cache, call_key, default_cache_dir
from ffsite.collect.api.calls import Call, Outcome
from ffsite.collect.api.client import (
    BASE_URL_VARIABLE,
    LOGGER,
    Endpoint,
    RetryPolicy,
    endpoint_from_env,
    insecure_base_url,
)
from ffsite.collect.api.cost import Price, Tally, estimated_tokens, find_price, load_prices
from ffsite.collect.api.estimate import Estimate, estimate_line
from ffsite.collect.api.session import Api, Phase, Session, Stream, run_sync

__all__ = [
    "BASE_URL_VARIABLE", "LOGGER", "Api", "Cache", "Call", "Endpoint", "Estimate",
    "Outcome", "Phase", "Price", "RetryPolicy", "Session", "Stream", "Tally", "call_key",
    "default_cache_dir", "endpoint_from_env", "estimate_line", "estimated_tokens",
    "find_price", "insecure_base_url", "load_prices", "run_sync",
]
