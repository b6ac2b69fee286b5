"""An OAuth-protected MCP server built on the MCP Python SDK 2.x (MCPServer with auth settings), for issue 35.

The SDK serves, at the app root, the authorization server (RFC 8414 metadata, dynamic registration, authorize, token,
revocation) and, for `/mcp`, the protected-resource metadata (RFC 9728) and the bearer check with its
`WWW-Authenticate` challenge. This peer adds what a real deployment has and the SDK leaves to its provider:

- an in-memory provider that approves every authorization at once: fetching the authorization URL answers 302 to the
  client's redirect URI with `code`, `state` and `iss` (RFC 9207; the metadata says so), so a test's "browser" is a
  plain GET without following redirects;
- access tokens that expire (`--token-lifetime`, 3600 s by default) and refresh tokens that rotate: a refresh token
  works once, and the pair it replaces stops working;
- a tool that needs a second scope, `mcp:write`: calling `write_note` with a token without it answers 403 with
  `Bearer error="insufficient_scope", scope="mcp mcp:write"` (the step-up of the authorization specification), which
  the SDK itself only does for the scopes every request needs;
- `GET /stats` (no auth): what the authorization server did, for tests to count.

Usage: python mcp2_oauth_peer.py [--token-lifetime SECONDS]. Prints `listening on http://127.0.0.1:PORT/mcp`.
Only 127.0.0.1.
"""

import asyncio
import json
import secrets
import socket
import sys
import time
import warnings
from typing import Any

from asgi_body import read_body, replaying
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse

warnings.simplefilter("ignore", DeprecationWarning)

SCOPES = ["mcp", "mcp:write", "offline_access"]

lifetime = 3600
if "--token-lifetime" in sys.argv:
    lifetime = int(sys.argv[sys.argv.index("--token-lifetime") + 1])

sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", 0))
sock.listen(128)
port = sock.getsockname()[1]
base = f"http://127.0.0.1:{port}"  # the issuer: origin only, as the SDK builds its endpoints on it

stats: dict[str, int] = {
    "registrations": 0,
    "authorizations": 0,
    "codeExchanges": 0,
    "refreshes": 0,
    "revocations": 0,
    "insufficientScope": 0,
}


class AutoApproveProvider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    """Every client, code and token in memory; every authorization approved at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        # Each refresh token with the access token issued beside it, so that a rotation or a revocation ends both.
        self.pairs: dict[str, str] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        client = self.clients.get(client_id)
        if client is None:
            return None
        # The SDK's authorize endpoint accepts only scopes the client registered: allow every scope the server has,
        # so that a step-up to a scope the client did not register at first can be authorized.
        return client.model_copy(update={"scope": " ".join(SCOPES)})

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        stats["registrations"] += 1
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        stats["authorizations"] += 1
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=base)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        code = self.codes.get(authorization_code)
        return code if code is not None and code.client_id == client.client_id else None

    def mint(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = "at-" + secrets.token_urlsafe(24)
        refresh = "rt-" + secrets.token_urlsafe(24)
        expires_at = int(time.time()) + lifetime
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires_at, resource=resource
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        self.pairs[refresh] = access
        return OAuthToken(access_token=access, expires_in=lifetime, scope=" ".join(scopes), refresh_token=refresh)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        stats["codeExchanges"] += 1
        self.codes.pop(authorization_code.code, None)  # a code works once
        assert client.client_id is not None
        return self.mint(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        token = self.refresh.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        if self.refresh.pop(refresh_token.token, None) is None:
            raise TokenError("invalid_grant", "refresh token already used")
        stats["refreshes"] += 1
        self.access.pop(self.pairs.pop(refresh_token.token, ""), None)  # rotation: the old pair stops working
        assert client.client_id is not None
        return self.mint(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        stats["revocations"] += 1
        if isinstance(token, RefreshToken):
            self.refresh.pop(token.token, None)
            self.access.pop(self.pairs.pop(token.token, ""), None)
        else:
            self.access.pop(token.token, None)
            for refresh, access in list(self.pairs.items()):
                if access == token.token:
                    self.refresh.pop(refresh, None)
                    self.pairs.pop(refresh, None)


provider = AutoApproveProvider()
server = MCPServer(
    "parley-oauth-peer",
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=base,
        resource_server_url=f"{base}/mcp",
        required_scopes=["mcp"],
        validate_token_resource=True,
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=SCOPES, default_scopes=["mcp"]
        ),
        revocation_options=RevocationOptions(enabled=True),
    ),
    log_level="WARNING",
)


@server.tool()
def whoami() -> str:
    """The client and scopes of the token the call came with."""
    token = get_access_token()
    return json.dumps({"client": token.client_id, "scopes": token.scopes} if token else {})


@server.tool()
def write_note(text: str) -> str:
    """Needs the scope mcp:write (a 403 with a step-up challenge otherwise)."""
    return f"noted: {text}"


@server.custom_route("/stats", methods=["GET"])
async def get_stats(_: Request) -> JSONResponse:
    return JSONResponse(stats)


def wrapped(app: Any) -> Any:
    """Adds `authorization_response_iss_parameter_supported` to the authorization server's metadata (the provider
    sends `iss`), and answers a `tools/call` of `write_note` without the scope `mcp:write` with a step-up 403."""

    async def middleware(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if scope["path"] == "/.well-known/oauth-authorization-server":
            await patched_metadata(scope, receive, send)
            return
        if scope["path"] == "/mcp" and scope["method"] == "POST":
            body = await read_body(receive)
            if body is None:
                return
            if await needs_write(scope, body):
                stats["insufficientScope"] += 1
                challenge = (
                    'Bearer error="insufficient_scope", scope="mcp mcp:write", '
                    f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", challenge.encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b'{"error": "insufficient_scope"}'})
                return
            await app(scope, replaying(body, receive), send)
            return
        await app(scope, receive, send)

    async def patched_metadata(scope: dict[str, Any], receive: Any, send: Any) -> None:
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                chunks.append(message.get("body", b""))

        await app(scope, receive, capture)
        body = b"".join(chunks)
        if start.get("status") == 200:
            metadata = json.loads(body)
            metadata["authorization_response_iss_parameter_supported"] = True
            body = json.dumps(metadata).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": start.get("status", 500), "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def needs_write(scope: dict[str, Any], body: bytes) -> bool:
        try:
            message = json.loads(body)
        except ValueError:
            return False
        calls = message if isinstance(message, list) else [message]
        if not any(
            isinstance(call, dict)
            and call.get("method") == "tools/call"
            and isinstance(call.get("params"), dict)
            and call["params"].get("name") == "write_note"
            for call in calls
        ):
            return False
        authorization = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        if not authorization.lower().startswith("bearer "):
            return False  # the SDK answers 401 itself
        token = await provider.load_access_token(authorization[7:])
        return token is not None and "mcp:write" not in token.scopes

    return middleware


if __name__ == "__main__":
    import uvicorn

    print(f"listening on {base}/mcp", flush=True)
    app = wrapped(server.streamable_http_app(json_response="--sse" not in sys.argv))
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, timeout_keep_alive=75)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
