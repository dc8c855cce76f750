"""https:// backends (issue 19: a hosted OpenAI-compatible endpoint): the wire client speaks
TLS with the system's CA certificates (``SSL_CERT_FILE`` points them at a test CA here)."""

from __future__ import annotations

import asyncio
import json
import shutil
import ssl
import subprocess

import pytest

from tokenpilot.gateway.transport import Upstream
from tokenpilot.gateway.wire import WireClient, WireConnectError

pytestmark = [pytest.mark.e2e,  # a TLS server on loopback
              pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")]


@pytest.fixture
def cert(tmp_path, monkeypatch):
    key, crt = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(crt), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True,
                   capture_output=True)
    monkeypatch.setenv("SSL_CERT_FILE", str(crt))  # the client trusts this certificate
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(crt, key)
    return ctx


async def _serve(ctx: ssl.SSLContext, seen: list[bytes]):
    async def handle(reader, writer):
        seen.append(await reader.readuntil(b"\r\n\r\n"))
        body = json.dumps({"ok": True}).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                     b"%d\r\n\r\n%b" % (len(body), body))
        await writer.drain()
        writer.close()
    return await asyncio.start_server(handle, "127.0.0.1", 0, ssl=ctx)


def test_the_wire_client_and_the_upstream_speak_tls(cert):
    seen: list[bytes] = []

    async def main():
        server = await _serve(cert, seen)
        port = server.sockets[0].getsockname()[1]
        async with WireClient(f"https://127.0.0.1:{port}") as client:
            resp = await client.request("GET", "/v1/models")
            assert resp.status == 200 and (await resp.json()) == {"ok": True}
        up = Upstream()
        up.set_headers(f"https://127.0.0.1:{port}", {"Authorization": "Bearer sk-hosted"})
        resp = await up.post(f"https://127.0.0.1:{port}", "/v1/chat/completions", b"{}", 2, 2)
        assert resp.status == 200
        resp.close(reuse=False)
        await up.aclose()
        server.close()
        await server.wait_closed()

    asyncio.run(main())
    assert seen[0].startswith(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"Authorization: Bearer sk-hosted\r\n" in seen[1]


def test_an_untrusted_certificate_is_a_connect_error(cert, monkeypatch, tmp_path):
    other = tmp_path / "empty.pem"
    other.write_text("")
    monkeypatch.setenv("SSL_CERT_FILE", str(other))  # now nothing is trusted

    async def main():
        server = await _serve(cert, [])
        port = server.sockets[0].getsockname()[1]
        try:
            async with WireClient(f"https://127.0.0.1:{port}") as client:
                with pytest.raises(WireConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                    await client.request("GET", "/v1/models")
        finally:
            server.close()

    asyncio.run(main())
