"""The API key reaches the server's Authorization header and nothing else: not the votes
file, the answers file, the cache, the log, or the terminal — even when the server
echoes it back in answers and error messages."""

from __future__ import annotations

from collections import Counter

from annotate_helpers import KEY, api_env, make_base_data, read_rows, run_cli, run_subprocess
from chat_server import ChatServer, Reply, hashed_judge, judge_parts

from ffsite.collect.api import Endpoint


def echoing_server():
    seen = Counter()

    def handler(request):
        header = request.headers.get("authorization", "")
        seen[request.digest] += 1
        if not request.is_judge:
            return Reply(f"My instructions came with {header}.")
        prompt = judge_parts(request.user_text)[0]
        if prompt.startswith("Question 0:"):
            return Reply(f"Incorrect API key provided: {KEY}", status=400)
        if prompt.startswith("Question 2:"):  # most of the key, as some proxies echo it
            return Reply(f"key {KEY[:-5]}***** is not allowed here; also got "
                         "sk-proj-abcdef123456 and Bearer xyz.123", status=400)
        if prompt.startswith("Question 1:") and seen[request.digest] == 1:
            return Reply(f"slow down, {KEY}", status=429, headers={"Retry-After": "0"})
        return hashed_judge(request)
    return handler


def test_the_key_is_written_nowhere(tmp_path):
    base = make_base_data(tmp_path / "base", 4)
    with ChatServer(echoing_server()) as server:
        process = run_subprocess(
            ["annotate", "--model", "m", "--judge", "j", "--base-data", str(base),
             "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out.parquet"),
             "--log", str(tmp_path / "run.log"), "--backoff", "0", "--max-invalid", "1"],
            api_env(server.url))
        stdout, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
        assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {KEY}"}

    written = [p for p in tmp_path.rglob("*") if p.is_file() and "base" not in p.parts]
    # 6 cache entries (the two refused judge calls are not cached), votes, communication
    # traits, answers, log.
    assert len(written) == 6 + 4
    for secret in (KEY, KEY[:-5], "sk-proj-abcdef123456", "xyz.123"):
        for path in written:
            assert secret.encode() not in path.read_bytes(), (secret, path)
        assert secret not in stdout and secret not in stderr

    # The echoes were really there, and were redacted on the way in.
    notes = {r["note"] for r in read_rows(tmp_path / "out.parquet")} - {None}
    assert any("Incorrect API key provided: [redacted]" in str(n) for n in notes)
    assert any("key [redacted]***** is not allowed here; also got [redacted] and [redacted]"
               in str(n) for n in notes)
    assert "came with Bearer [redacted]" in (tmp_path / "out.responses.json").read_text()
    assert "retry 1 of j" in (tmp_path / "run.log").read_text()


def test_credentials_in_the_base_url_are_redacted_and_plain_http_is_warned_about(tmp_path):
    base = make_base_data(tmp_path / "base", 2)
    # Nothing listens on port 9 (discard) of this documentation address: the call fails
    # at once, and the error names the URL.
    url = "http://user:hunter2secret@192.0.2.1:9/v1"
    result = run_cli(["annotate", "--model", "m", "--judge", "j", "--base-data", str(base),
                      "--cache-dir", str(tmp_path / "cache"), "--dry-run",
                      "--out", str(tmp_path / "o.parquet")],
                     {"FFSITE_API_BASE": url, "FFSITE_API_KEY": KEY})
    assert result.exit_code == 0, result.output
    assert "hunter2secret" not in result.output
    assert "warning: FFSITE_API_BASE http://[redacted]@192.0.2.1:9/v1 is plain HTTP" in (
        result.output)
    endpoint = Endpoint(url, KEY)
    assert "hunter2secret" not in repr(endpoint)
    assert endpoint.redact("GET https://a:b@host/x and ftp://u@h") == (
        "GET https://[redacted]@host/x and ftp://[redacted]@h")


def test_endpoint_repr_hides_the_key():
    endpoint = Endpoint("http://127.0.0.1:1/v1", KEY)
    assert KEY not in repr(endpoint) and KEY not in str(endpoint)
    assert endpoint.redact(f"x {KEY} y {KEY}") == "x [redacted] y [redacted]"


def test_without_a_key_nothing_is_sent_and_the_error_says_what_to_set(tmp_path):
    base = make_base_data(tmp_path / "base", 2)
    no_key = {name: None for name in ("FFSITE_API_BASE", "FFSITE_API_KEY",
                                      "OPENROUTER_API_KEY", "OPENAI_API_KEY")}
    result = run_cli(["annotate", "--model", "m", "--judge", "j", "--base-data", str(base),
                      "--cache-dir", str(tmp_path / "cache"), "--out",
                      str(tmp_path / "o.parquet")], no_key)
    assert "no API key: set FFSITE_API_KEY" in str(result.exception)
    assert not (tmp_path / "o.parquet").exists()
