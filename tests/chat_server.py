"""A scriptable chat-completions server on 127.0.0.1 for tests and benchmarks.

It speaks enough HTTP/1.1 (keep-alive, Content-Length bodies) and the OpenAI
chat-completions shape (`choices[0].message.content`, `usage`) for ffsite's client.
Each request goes to a handler that returns a `Reply`: an answer, an error status with
headers (429 + Retry-After), a delay (latency, slow answers past a timeout), a dropped
connection, or a raw body (malformed JSON).  The server records every request, what it
answered, and how many requests were in flight at once.

Run alone for benchmarks: `python tests/chat_server.py --latency 0.05` prints the port.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Request:
    index: int
    headers: dict[str, str]
    body: dict
    time: float = field(default_factory=time.monotonic)

    @property
    def model(self) -> str:
        return self.body.get("model", "")

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])

    @property
    def is_judge(self) -> bool:
        return any(m.get("role") == "system" for m in self.messages)

    @property
    def user_text(self) -> str:
        return self.messages[-1]["content"]

    @property
    def digest(self) -> str:
        """Identifies a request's content (the same call made twice has the same digest)."""
        text = json.dumps(self.body, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False
    raw_body: bytes | None = None
    usage: dict | None = None  # default: tokens counted as characters / 4
    finish_reason: str = "stop"


# --------------------------------------------------------------- judge-prompt helpers

_TAG = {name: re.compile(rf"<{name}>\n(.*?)\n</{name}>", re.DOTALL)
        for name in ("user_message", "sample_a", "sample_b")}
_RULE = re.compile(r"^(\d+)\. (.+)$", re.MULTILINE)


def judge_parts(text: str) -> tuple[str, str, str, list[str]]:
    """(user message, sample A, sample B, rules) from one of ffsite's judge prompts."""
    prompt, first, second = (_TAG[name].search(text).group(1)
                             for name in ("user_message", "sample_a", "sample_b"))
    rules_block = text.split("Rules:\n", 1)[1].split("\n\n", 1)[0]
    return prompt, first, second, [m.group(2) for m in _RULE.finditer(rules_block)]


def longer_sample_judge(request: Request) -> Reply:
    """Answers by content: every rule picks the longer sample; a generation is echoed."""
    if not request.is_judge:
        return Reply(content=f"{request.model} says: {request.user_text}")
    _, first, second, rules = judge_parts(request.user_text)
    side = "A" if len(first) > len(second) else "B"
    return Reply(content=json.dumps({str(i): side for i in range(1, len(rules) + 1)}))


def hashed_judge(request: Request) -> Reply:
    """A fast default: deterministic answers from a hash of the request."""
    if not request.is_judge:
        return Reply(content=f"answer {request.digest[:16]}")
    n_rules = len(_RULE.findall(request.user_text.split("Rules:\n", 1)[1]))
    digest = hashlib.sha256(request.user_text.encode()).digest()
    values = ("A", "B", "Both", "None")
    return Reply(content=json.dumps({str(i + 1): values[digest[i % 32] % 4]
                                     for i in range(n_rules)}))


# ------------------------------------------------------------------------ the server

class ChatServer:
    """`with ChatServer(handler, latency=0.05) as server: ... server.url ...`"""

    def __init__(self, handler: Callable[[Request], Reply] = hashed_judge, *,
                 latency: float = 0.0, port: int = 0):
        self.handler = handler
        self.latency = latency
        self.port = port
        self.requests: list[Request] = []
        self.answered: list[Request] = []  # requests whose full reply was sent
        self.in_flight = 0
        self.max_in_flight = 0
        self.connections = 0  # open now
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc_info) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._connection, "127.0.0.1", self.port)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def serve_forever(self) -> None:
        await self._main()

    def settle(self, timeout: float = 30.0) -> None:
        """Return once no connection is open.  A client killed with SIGKILL may have sent
        requests the server reads only afterwards: they are counted in `requests` by the
        time this returns, so a count taken after the kill holds every request the
        killed run made (on a busy machine, two came in after such a count)."""
        deadline = time.monotonic() + timeout
        while self.connections:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.connections} connections still open after "
                                     f"{timeout} s")
            time.sleep(0.01)

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        with self._lock:
            self.connections += 1
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    break
                headers = {}
                while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", 0)))
                if not await self._respond(headers, body, writer):
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            with self._lock:
                self.connections -= 1

    async def _respond(self, headers: dict, raw: bytes, writer: asyncio.StreamWriter) -> bool:
        with self._lock:
            request = Request(len(self.requests), headers, json.loads(raw or b"{}"))
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = self.handler(request)
            await asyncio.sleep(self.latency + reply.delay)
            if reply.drop:
                return False
            payload = reply.raw_body if reply.raw_body is not None else self._body(request,
                                                                                  reply)
            head = [f"HTTP/1.1 {reply.status} X", "Content-Type: application/json",
                    f"Content-Length: {len(payload)}"]
            head += [f"{name}: {value}" for name, value in reply.headers.items()]
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
            await writer.drain()
            with self._lock:
                self.answered.append(request)
            return True
        finally:
            with self._lock:
                self.in_flight -= 1

    @staticmethod
    def _body(request: Request, reply: Reply) -> bytes:
        if reply.status != 200:
            return json.dumps({"error": {"message": reply.content or "error"}}).encode()
        prompt_chars = sum(len(m.get("content", "")) for m in request.messages)
        usage = reply.usage or {"prompt_tokens": prompt_chars // 4,
                                "completion_tokens": len(reply.content) // 4}
        usage = {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}
        return json.dumps({
            "id": f"chat-{request.index}", "object": "chat.completion",
            "model": request.model,
            "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                         "message": {"role": "assistant", "content": reply.content}}],
            "usage": usage,
        }).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = ChatServer(latency=args.latency, port=args.port)

    async def run() -> None:
        task = asyncio.create_task(server.serve_forever())
        await asyncio.get_running_loop().run_in_executor(None, server._ready.wait)
        print(server.port, flush=True)
        await task

    asyncio.run(run())


if __name__ == "__main__":
    main()
