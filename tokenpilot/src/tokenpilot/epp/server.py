"""``tokenpilot epp``: Envoy's external-processing gRPC service, as GIE's endpoint picker serves it.

One ``Process`` stream carries one HTTP request and its answer. In GIE's processing mode
(``request_body_mode: FULL_DUPLEX_STREAMED``, as its manifests configure Envoy) the proxy
sends the request headers and then the body without waiting; the picker holds its answer to
the headers until the body is complete, decides, and answers both at once: the headers with
the chosen endpoint in ``x-gateway-destination-endpoint`` (and ``clear_route_cache``), the
same value in the dynamic metadata ``envoy.lb`` / ``x-gateway-destination-endpoint``, and the
body streamed back (its ``Content-Length`` set). A refusal is an ``ImmediateResponse``: the
gateway's own status (429 rate limits, 503 overload or no ready endpoint, 400/404/413 for a
bad body) with an OpenAI-style error body and Retry-After. The answer then streams through
(``response_body_mode: FULL_DUPLEX_STREAMED``): each chunk is passed on at once and read on
the way for the backend's and the tenant's books.

When the proxy says (``protocol_config``) it buffers the body instead (``BUFFERED``), the
headers are answered at once and the decision rides on the body's answer; the body then goes
on unchanged. A proxy that sends no answer body (``response_body_mode: NONE``) leaves what
admission charged in place.

GIE's health services (``liveness``, ``readiness``, the ext_proc service name) answer on the
same port, by the gRPC health protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from envoy.config.core.v3 import base_pb2
from envoy.extensions.filters.http.ext_proc.v3.processing_mode_pb2 import ProcessingMode
from envoy.service.ext_proc.v3 import external_processor_pb2 as pb
from envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from envoy.type.v3 import http_status_pb2
from google.protobuf import struct_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from tokenpilot.epp.endpoints import Watcher
from tokenpilot.epp.picker import Exchange, Picker, Refusal
from tokenpilot.gateway.accesslog import Exchange as LogLine
from tokenpilot.gateway.asgi import ROUTES

log = logging.getLogger("tokenpilot.epp")

# The Endpoint Picker Protocol of the Gateway API Inference Extension, v1.0.0 (2025-07-29):
# kubernetes-sigs/gateway-api-inference-extension, docs/proposals/004-endpoint-picker-protocol.
DESTINATION = "x-gateway-destination-endpoint"
DESTINATION_SERVED = "x-gateway-destination-endpoint-served"
SUBSET = "x-gateway-destination-endpoint-subset"
METADATA_NAMESPACE = "envoy.lb"
SUBSET_NAMESPACE = "envoy.lb.subset_hint"
SERVICE = "envoy.service.ext_proc.v3.ExternalProcessor"
HEALTH_SERVICES = ("", "liveness", "readiness", SERVICE)
# Body send modes.
BUFFERED, NONE, FULL_DUPLEX = (ProcessingMode.BUFFERED, ProcessingMode.NONE,
                               ProcessingMode.FULL_DUPLEX_STREAMED)
OVERWRITE = base_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD


def header_options(pairs: list[tuple[str, str]]) -> list[base_pb2.HeaderValueOption]:
    return [base_pb2.HeaderValueOption(header=base_pb2.HeaderValue(key=k, raw_value=v.encode()),
                                       append_action=OVERWRITE) for k, v in pairs]


def immediate(r: Refusal) -> pb.ProcessingResponse:
    return pb.ProcessingResponse(immediate_response=pb.ImmediateResponse(
        status=http_status_pb2.HttpStatus(code=r.status),
        headers=pb.HeaderMutation(set_headers=header_options(r.headers())),
        body=r.body(), details=r.code))


def destination_metadata(address: str) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update({METADATA_NAMESPACE: {DESTINATION: address}})
    return out


def routed(ex: Exchange, body_len: int | None) -> pb.CommonResponse:
    """The mutation that sends the request to ``ex``'s endpoint (``body_len``: the body's new
    length, when the picker sends the body on itself)."""
    pairs = [(DESTINATION, ex.address)]
    if body_len is not None:
        pairs.append(("content-length", str(body_len)))
    return pb.CommonResponse(header_mutation=pb.HeaderMutation(set_headers=header_options(pairs)),
                             clear_route_cache=True)


def streamed(body: bytes, end: bool) -> pb.CommonResponse:
    return pb.CommonResponse(body_mutation=pb.BodyMutation(
        streamed_response=pb.StreamedBodyResponse(body=body, end_of_stream=end)))


def headers_of(m: Any) -> dict[str, str]:
    """An ``HttpHeaders`` message's headers, names in lower case (``raw_value`` or ``value``)."""
    return {h.key.lower(): (h.raw_value.decode("latin-1") if h.raw_value else h.value)
            for h in m.headers.headers}


def metadata_value(req: pb.ProcessingRequest, namespace: str, key: str) -> Any:
    """One value of the proxy's filter metadata (``metadata_context``), or None."""
    fm = req.metadata_context.filter_metadata
    if namespace not in fm:
        return None
    fields = fm[namespace].fields
    if key not in fields:
        return None
    v = fields[key]
    kind = v.WhichOneof("kind")
    if kind == "list_value":
        return [x.string_value for x in v.list_value.values]
    if kind == "string_value":
        return v.string_value
    return None


class ExternalProcessor(pb_grpc.ExternalProcessorServicer):
    """The ext_proc service over a ``Picker``."""

    def __init__(self, picker: Picker) -> None:
        self.picker = picker

    async def Process(self, requests: AsyncIterator[pb.ProcessingRequest],  # noqa: N802 - gRPC
                      context: grpc.aio.ServicerContext) -> AsyncIterator[pb.ProcessingResponse]:
        p = self.picker
        # GIE's mode unless the proxy says otherwise: both bodies FULL_DUPLEX_STREAMED.
        buffered, through, answers = False, True, True
        headers: dict[str, str] = {}
        body = bytearray()
        subset: list[str] | None = None
        ex: Exchange | None = None
        line: LogLine | None = None
        limit = p.cfg.limits.max_body_bytes

        def decide(raw: bytes | None) -> list[pb.ProcessingResponse]:
            """Decide on the request now; the answers that say so (one immediate response,
            or the headers' and the body's answers)."""
            nonlocal ex, line
            out = p.decide(headers, raw, subset, rewrite=not buffered and through)
            line = out.log
            if isinstance(out, Refusal):
                return [immediate(out)]
            ex = out
            ex.sees_answers = answers
            meta = destination_metadata(ex.address)
            if raw is None:
                return [pb.ProcessingResponse(
                    request_headers=pb.HeadersResponse(response=routed(ex, None)),
                    dynamic_metadata=meta)]
            if buffered:
                return [pb.ProcessingResponse(
                    request_body=pb.BodyResponse(response=routed(ex, None)),
                    dynamic_metadata=meta)]
            return [pb.ProcessingResponse(request_headers=pb.HeadersResponse(
                        response=routed(ex, len(ex.payload))), dynamic_metadata=meta),
                    pb.ProcessingResponse(request_body=pb.BodyResponse(
                        response=streamed(ex.payload, True)))]

        try:
            async for msg in requests:
                kind = msg.WhichOneof("request")
                if msg.HasField("protocol_config"):
                    pc = msg.protocol_config
                    buffered = pc.request_body_mode == BUFFERED
                    through = pc.response_body_mode == FULL_DUPLEX
                    answers = pc.response_body_mode != NONE
                if kind == "request_headers":
                    headers = headers_of(msg.request_headers)
                    hint = metadata_value(msg, SUBSET_NAMESPACE, SUBSET)
                    subset = hint if isinstance(hint, list) else None
                    if msg.request_headers.end_of_stream:  # no body: route it now
                        out = decide(None)
                    else:
                        out = [pb.ProcessingResponse(request_headers=pb.HeadersResponse())
                               ] if buffered else []
                elif kind == "request_body":
                    body += msg.request_body.body
                    # Past the limit: decided now, and refused (413).
                    done = msg.request_body.end_of_stream or len(body) > limit
                    out = decide(bytes(body)) if done else []
                elif kind == "request_trailers":  # trailers end a body that did not say so
                    out = decide(bytes(body)) if ex is None and line is None else []
                    out.append(pb.ProcessingResponse(request_trailers=pb.TrailersResponse()))
                elif kind == "response_headers":
                    if ex is not None:
                        served = metadata_value(msg, METADATA_NAMESPACE, DESTINATION_SERVED)
                        if isinstance(served, str) and served:
                            ex.served_by(served.split(",")[0].strip())
                        h = headers_of(msg.response_headers)
                        ex.response_head(int(h.get(":status", "200") or 0),
                                         h.get("content-type", ""))
                        if msg.response_headers.end_of_stream:
                            ex.finish("success")
                    out = [pb.ProcessingResponse(response_headers=pb.HeadersResponse())]
                elif kind == "response_body":
                    chunk, end = msg.response_body.body, msg.response_body.end_of_stream
                    if ex is not None:
                        chunk = ex.response_chunk(chunk, end)
                        if end:
                            ex.finish("success")
                    out = [pb.ProcessingResponse(response_body=pb.BodyResponse(
                        response=streamed(chunk, end)) if through else pb.BodyResponse())]
                elif kind == "response_trailers":
                    if ex is not None:
                        ex.finish("success")
                    out = [pb.ProcessingResponse(response_trailers=pb.TrailersResponse())]
                else:
                    out = []
                for r in out:
                    yield r
                if out and out[0].WhichOneof("response") == "immediate_response":
                    return
        finally:
            if ex is not None:
                ex.finish("cancelled")  # a no-op once the answer ended
            if line is not None:  # one count (and access-log line) per request
                line.status = line.status or 200
                line.latency_s = time.perf_counter() - line.t0
                p.responded(ROUTES.get(line.path, "other"), line)


async def set_health(h: health.aio.HealthServicer, serving: bool) -> None:
    status = (health_pb2.HealthCheckResponse.SERVING if serving else
              health_pb2.HealthCheckResponse.NOT_SERVING)
    for name in HEALTH_SERVICES:
        await h.set(name, status if name not in ("", "liveness") else
                    health_pb2.HealthCheckResponse.SERVING)


async def serve(picker: Picker, watcher: Watcher, host: str, port: int, reload_s: float,
                bound: Callable[[int], None] = lambda port: None,
                stop: asyncio.Event | None = None) -> None:
    """Serve ext_proc and health on ``host:port`` until ``stop`` is set (or SIGTERM/SIGINT);
    ``bound`` learns the port really bound (``port`` 0 picks a free one)."""
    # No SO_REUSEPORT: a second picker on a port in use must fail, not share it.
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    servicer = ExternalProcessor(picker)
    pb_grpc.add_ExternalProcessorServicer_to_server(servicer, server)
    h = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(h, server)
    await set_health(h, False)
    try:
        real = server.add_insecure_port(f"{host}:{port}")
    except RuntimeError:  # grpcio raises where it once returned 0
        real = 0
    if not real:
        raise OSError(f"cannot listen on {host}:{port} (in use, or not an address here)")
    await server.start()
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    await picker.start()
    await set_health(h, True)  # readiness: the pool is read and its first checks are in
    bound(real)

    async def watch() -> None:
        while True:
            await asyncio.sleep(reload_s)
            try:
                pool = watcher.poll()
                if pool is not None:
                    await picker.reload(pool)
                    log.info("endpoints file changed: %d endpoint(s) now", len(pool))
            except Exception:  # a bug must not end the watching: say so, look again later
                log.exception("reloading the endpoints file failed")

    watching = asyncio.create_task(watch())
    try:
        await stop.wait()
    finally:
        watching.cancel()
        await set_health(h, False)
        await server.stop(2.0)
        await picker.stop()
