"""OpenAI API shared by the gateway and the simulated backend: routes, errors, chunks, limits."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request as HTTPRequest
from starlette.responses import Response
from starlette.routing import Route

from tokenpilot.gateway.text import BadRequest

CHAT_PATH = "/v1/chat/completions"
COMPLETIONS_PATH = "/v1/completions"
COMPLETION_PATHS = {CHAT_PATH: True, COMPLETIONS_PATH: False}  # path -> chat?
Endpoint = Callable[[HTTPRequest], Awaitable[Response]]
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "invalid_request_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
    500: "server_error",
    502: "server_error",
    503: "service_unavailable",
    504: "timeout",
}
# The reason a response without a code of its own is counted under (``tokenpilot_responses``).
REASONS = {404: "not_found", 405: "method_not_allowed", 500: "internal_error"}


def openai_routes(completions: Callable[[HTTPRequest, bool], Awaitable[Response]],
                  models: Endpoint, health: Endpoint, metrics: Endpoint) -> list[Route]:
    """The five routes the gateway and the simulated backend both serve: the two completion
    endpoints (``completions(request, chat)``), the model list, health and metrics."""

    async def chat(request: HTTPRequest) -> Response:
        return await completions(request, True)

    async def plain(request: HTTPRequest) -> Response:
        return await completions(request, False)

    return [
        Route(CHAT_PATH, chat, methods=["POST"]),
        Route(COMPLETIONS_PATH, plain, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]


def error_body(status: int, message: str, code: str | None = None,
               param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": ERROR_TYPES.get(status, "error"),
                      "code": code, "param": param}}


def error_response(status: int, message: str, code: str | None = None, param: str | None = None,
                   retry_after_s: float | None = None) -> Response:
    headers = {}
    if retry_after_s is not None:
        headers["Retry-After"] = str(max(1, int(retry_after_s + 0.999)))
    resp = Response(json.dumps(error_body(status, message, code, param)), status,
                    headers=headers, media_type="application/json")
    resp.reason = code or REASONS.get(status, f"http_{status}")  # type: ignore[attr-defined]
    return resp


def sse_error(message: str, code: str = "upstream_error") -> bytes:
    """The event a stream ends with when its backend fails after the first byte."""
    return b"data: " + json.dumps(error_body(502, message, code)).encode() + b"\n\n"


async def read_json(request: HTTPRequest, max_bytes: int) -> dict[str, Any]:
    """The body as a JSON object; ``BadRequest`` (with status) saying what is wrong otherwise."""
    return parse_object(await read_raw(request.scope, request.receive, max_bytes))


def header(scope: Mapping[str, Any], name: bytes) -> str | None:
    """One request header from an ASGI scope (``name`` in lower case), without Starlette's
    ``Request`` and ``Headers`` objects, which the gateway's hot path has no other use for."""
    for k, v in scope["headers"]:
        if k == name:
            return v.decode("latin-1")
    return None


async def read_raw(scope: Mapping[str, Any], receive: Any, max_bytes: int) -> bytes:
    """The request body's bytes, straight from the ASGI ``receive``; ``TooLarge`` past
    ``max_bytes``."""
    declared = kind = None
    for k, v in scope["headers"]:  # one pass for both headers: this runs for every request
        if k == b"content-length":
            declared = v
        elif k == b"content-type":
            kind = v
    if kind is not None and kind != b"application/json" and not _is_json(kind):
        raise NotJSON(kind.decode("latin-1"))
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise TooLarge(max_bytes)
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client left before its body was in
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(max_bytes)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def parse_object(raw: bytes) -> dict[str, Any]:
    """``raw`` as a JSON object; ``BadRequest`` saying what is wrong otherwise."""
    if not raw:
        raise BadRequest("the request body is empty; send a JSON object")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the request body is not valid JSON ({exc})",
                         code="invalid_json") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


def _is_json(content_type: bytes) -> bool:
    """``application/json`` or a ``+json`` type, any parameters (``; charset=utf-8``) aside."""
    media = content_type.partition(b";")[0].strip().lower()
    return media == b"application/json" or media.endswith(b"+json")


class NotJSON(BadRequest):
    """A body declared as something else than JSON: 415, as vLLM's and SGLang's servers answer.
    A request with no Content-Type at all is read as JSON (raw clients often send none)."""

    status = 415

    def __init__(self, content_type: str) -> None:
        super().__init__(f"the request body is declared as {content_type!r}; send JSON with "
                         "'Content-Type: application/json'", code="unsupported_media_type")


class ModelNotFound(BadRequest):
    """A body naming a model that no backend here serves: 404, as OpenAI's API answers."""

    status = 404

    def __init__(self, model: object, served: list[str]) -> None:
        super().__init__(f"model {model!r} is not served here; available: "
                         f"{', '.join(served) or 'none yet'}", "model", "model_not_found")


class TooLarge(BadRequest):
    status = 413

    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"the request body exceeds the {max_bytes}-byte limit; send a shorter "
                         "prompt", code="body_too_large")


def max_tokens_of(body: Mapping[str, Any], default: int, limit: int) -> int:
    """``max_completion_tokens`` or ``max_tokens``, checked: a positive integer up to ``limit``."""
    key = "max_completion_tokens" if "max_completion_tokens" in body else "max_tokens"
    value = body.get(key)
    if value is None:
        return min(default, limit)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"'{key}' must be a positive integer, got {value!r}", key)
    if value <= 0:
        raise BadRequest(f"'{key}' must be at least 1, got {value}", key)
    if value > limit:
        raise BadRequest(f"'{key}' is {value}, above this server's limit of {limit}; ask for "
                         "fewer tokens", key)
    return value


def stream_flags(body: Mapping[str, Any]) -> tuple[bool, bool]:
    """(stream, include_usage) from the body, type-checked."""
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise BadRequest(f"'stream' must be true or false, got {stream!r}", "stream")
    opts = body.get("stream_options") or {}
    if not isinstance(opts, Mapping):
        raise BadRequest("'stream_options' must be an object", "stream_options")
    return stream, bool(opts.get("include_usage", False))


def now_s() -> int:
    return int(time.time())
