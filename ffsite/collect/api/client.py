"""An OpenAI-compatible chat-completions client: async, bounded, retrying, key-safe.

Every call goes through one `ChatClient`.  It owns `concurrency` lanes, each an httpx
transport with one keep-alive connection; a call waits for a free lane, so the lanes cap
the calls in flight.  (One httpx pool with many connections spends most of its CPU
choosing a connection for each request; single-connection lanes do not, and calling the
transport directly skips the client's cookie and redirect machinery.)

Each attempt has a total timeout; 408s, 429s, 5xx answers, timeouts, dropped connections
and malformed bodies are retried with exponential backoff and jitter (or after the
server's `Retry-After`) up to an attempt cap; other 4xx answers fail the call at once
(401/403/404 stop the run).  The API key is sent in a header and nowhere else: every text
that leaves this module (answers, error reasons) passes through `redact`.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import logging
import math
import os
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from ffsite.errors import FfsiteError

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"
BASE_URL_VARIABLE = "FFSITE_API_BASE"
KEY_VARIABLES = ("FFSITE_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY")
# Statuses that mean the whole run is misconfigured (bad key, wrong URL or model): stop.
FATAL_STATUSES = (401, 403, 404)
MAX_RETRY_AFTER = 300.0  # seconds; a server asking for longer is treated as this
REDACTED = "[redacted]"

LOGGER = "ffsite.collect"  # retries and failures; the run's log file (commands/_api.py)
log = logging.getLogger(LOGGER)


@dataclass(frozen=True)
class Endpoint:
    """Where calls go and the key they carry (never printed: see `__repr__`)."""

    base_url: str
    key: str | None

    def __repr__(self) -> str:
        shown = REDACTED if self.key else None
        return f"Endpoint(base_url={self.redact(self.base_url)!r}, key={shown})"

    def redact(self, text: str) -> str:
        """`text` without the key: the key itself, any run of characters sharing eight in a
        row with it (a server that echoes "sk-...abcd" or all but the last characters), and
        credentials in URLs."""
        text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
        if not self.key:
            return text
        text = text.replace(self.key, REDACTED)
        fragments = _fragments(self.key)
        if fragments is None:
            return text
        return _TOKEN.sub(lambda m: REDACTED if fragments.search(m.group()) else m.group(),
                          text)

    def redact_message(self, text: str) -> str:
        """An error message or note: `redact`, and anything shaped like a key or a bearer
        token (a proxy may echo another credential than ours)."""
        return _KEY_LIKE.sub(REDACTED, self.redact(text))


_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")
_TOKEN = re.compile(r"[A-Za-z0-9_\-.+/=:]{8,}")
_KEY_LIKE = re.compile(r"(?i)\b(?:sk|pk|rk|key)-[A-Za-z0-9_\-]{6,}|\bbearer\s+\S+")
FRAGMENT = 8  # characters of the key in a row that count as the key


@functools.cache
def _fragments(key: str) -> re.Pattern | None:
    """A pattern matching any FRAGMENT characters in a row of `key`."""
    if len(key) < FRAGMENT:
        return None
    pieces = sorted({key[i:i + FRAGMENT] for i in range(len(key) - FRAGMENT + 1)})
    return re.compile("|".join(map(re.escape, pieces)))


def insecure_base_url(base_url: str) -> bool:
    """True for plain HTTP to another machine: the key would cross the network readable."""
    parts = urlsplit(base_url)
    local = parts.hostname in ("localhost", "127.0.0.1", "::1") or (
        parts.hostname or "").endswith(".localhost")
    return parts.scheme != "https" and not local


def endpoint_from_env(environ: Mapping[str, str] = os.environ) -> Endpoint:
    base = environ.get(BASE_URL_VARIABLE) or DEFAULT_BASE_URL
    key = next((environ[name] for name in KEY_VARIABLES if environ.get(name)), None)
    return Endpoint(base.rstrip("/"), key)


def require_key(endpoint: Endpoint) -> None:
    """A key is needed for the default (OpenRouter) endpoint; a local server may do without."""
    if endpoint.key is None and endpoint.base_url == DEFAULT_BASE_URL:
        raise FfsiteError("no API key: set FFSITE_API_KEY (or OPENROUTER_API_KEY / "
                          "OPENAI_API_KEY), or point FFSITE_API_BASE at another endpoint")


@dataclass(frozen=True)
class Answer:
    content: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    provider_cost: float | None  # the provider's own figure (OpenRouter: usage.cost)
    attempts: int


class CallFailed(Exception):
    """A call that exhausted its attempts or met a non-retryable answer."""

    def __init__(self, reason: str, attempts: int):
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts


class NotAdmitted(Exception):
    """The caller's admission check (the budget) refused the call; nothing was sent."""


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    timeout: float = 120.0  # seconds per attempt, connect to last byte
    backoff: float = 1.0  # first retry delay; doubles per attempt, jittered
    max_backoff: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after * random.uniform(1.0, 1.1)  # a little later, never sooner
        base = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return base * random.uniform(0.5, 1.5)


class _Fail(Exception):
    """A non-retryable answer (e.g. HTTP 400: the request itself is wrong)."""


class _Retry(Exception):
    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class ChatClient:
    """Use as `async with ChatClient(...) as client: await client.complete(body)`."""

    def __init__(self, endpoint: Endpoint, *, concurrency: int, policy: RetryPolicy,
                 on_retry: Callable[[str], None] | None = None):
        self.endpoint = endpoint
        self.policy = policy
        self.on_retry = on_retry
        self._headers = {"Content-Type": "application/json"}
        if endpoint.key:
            self._headers["Authorization"] = f"Bearer {endpoint.key}"
        certificates = httpx.create_ssl_context()  # loading CA files is slow: do it once
        self._all_lanes = [httpx.AsyncHTTPTransport(
            verify=certificates, limits=httpx.Limits(max_connections=1,
                                                     max_keepalive_connections=1))
            for _ in range(concurrency)]
        self._lanes: asyncio.Queue[httpx.AsyncHTTPTransport] = asyncio.Queue()
        for lane in self._all_lanes:
            self._lanes.put_nowait(lane)
        self._url = endpoint.base_url + "/chat/completions"

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc_info) -> None:
        for lane in self._all_lanes:
            await lane.aclose()

    async def complete(self, body: dict, admit: Callable[[], Awaitable[bool]] | None = None,
                       keep: Callable[[Answer], Awaitable[Any]] | None = None) -> Any:
        """One chat completion; `admit` is awaited once a lane is free (False: NotAdmitted).
        With `keep`, returns what `keep(answer)` returns, awaited while the lane is still
        held: a caller that stores the answer there (the cache) has at most `concurrency`
        calls sent or answered-but-not-stored at any moment, so a kill loses no more.

        The lane is held through backoff sleeps: a rate-limited server gets fewer calls.
        """
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        lane = await self._lanes.get()
        try:
            if admit is not None and not await admit():
                raise NotAdmitted()
            for attempt in range(1, self.policy.max_attempts + 1):
                try:
                    answer = self._answer(await self._attempt(lane, payload), attempt)
                    return answer if keep is None else await keep(answer)
                except _Fail as fail:
                    raise CallFailed(self.endpoint.redact_message(str(fail)), attempt) from None
                except _Retry as retry:
                    reason = self.endpoint.redact_message(retry.reason)
                    if attempt == self.policy.max_attempts:
                        raise CallFailed(f"{reason} after {attempt} attempts", attempt) from None
                    delay = self.policy.delay(attempt, retry.retry_after)
                    log.info("retry %d of %s in %.2fs: %s", attempt, body.get("model"),
                             delay, reason)
                    if self.on_retry:
                        self.on_retry(reason)
                    await asyncio.sleep(delay)
        finally:
            self._lanes.put_nowait(lane)
        raise AssertionError("unreachable")

    async def _attempt(self, lane: httpx.AsyncHTTPTransport, payload: bytes) -> dict:
        request = httpx.Request("POST", self._url, content=payload, headers=self._headers)
        try:
            async with asyncio.timeout(self.policy.timeout):
                response = await lane.handle_async_request(request)
                body = await _read_capped(response)
        except (TimeoutError, httpx.TimeoutException):
            raise _Retry("timeout") from None
        except httpx.TransportError as exc:
            raise _Retry(f"connection error ({type(exc).__name__})") from None
        status = response.status_code
        if status in (408, 429) or status >= 500:
            raise _Retry(f"HTTP {status}", _retry_after(response.headers.get("retry-after")))
        if status != 200:
            message = self.endpoint.redact_message(_error_message(body))
            if status in FATAL_STATUSES:
                raise FfsiteError(f"the API at {self.endpoint.redact(self._url)} answered HTTP "
                                  f"{status} ({message}); check the API key, FFSITE_API_BASE "
                                  "and the model names")
            raise _Fail(f"HTTP {status}: {message}")
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            raise _Retry("malformed API response (not JSON)") from None
        if not isinstance(data, dict):
            raise _Retry("malformed API response (not a JSON object)")
        return data

    def _answer(self, data: dict, attempts: int) -> Answer:
        try:
            choice = data["choices"][0]
            content = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise _Retry("malformed API response (no choices[0].message)") from None
        if not isinstance(content, str):
            raise _Retry("malformed API response (message content is not text)")
        usage = data.get("usage")
        usage = usage if isinstance(usage, dict) else {}  # a broken usage costs the numbers
        finish = choice.get("finish_reason")
        return Answer(
            content=self.endpoint.redact(content),
            finish_reason=finish if isinstance(finish, str) else None,
            prompt_tokens=_count(usage.get("prompt_tokens")),
            completion_tokens=_count(usage.get("completion_tokens")),
            provider_cost=_money(usage.get("cost")),
            attempts=attempts)


MAX_BODY = 16 * 2**20  # bytes of one API answer; far above any chat completion


async def _read_capped(response: httpx.Response) -> bytes:
    """The body, refused beyond MAX_BODY (one 200 MB answer cost 1.6 GB of memory and
    became a 200 MB judge prompt)."""
    body = bytearray()
    try:
        async for chunk in response.aiter_raw():
            body += chunk
            if len(body) > MAX_BODY:
                raise _Fail(f"answer larger than {MAX_BODY // 2**20} MB; refused")
    finally:
        await response.aclose()
    return bytes(body)


def _count(value) -> int:
    """A token count; anything but a non-negative number counts as 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        return 0
    return int(min(value, 2**31))


def _money(value) -> float | None:
    """A provider's cost; a negative, NaN or infinite figure is no figure (the price table
    is used instead, so a bogus cost cannot defeat the budget)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            moment = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = moment.timestamp() - time.time()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _error_message(body: bytes) -> str:
    """A short, single-line reason from an error body (OpenAI style or plain text)."""
    try:
        data = json.loads(body)
        error = data.get("error", data) if isinstance(data, dict) else data
        message = error.get("message", error) if isinstance(error, dict) else error
    except (ValueError, RecursionError):
        message = body.decode("utf-8", "replace")
    return " ".join(str(message).split())[:160] or "no message"
