"""A tiny OpenID Connect provider on loopback: the stand-in for huggingface.co's sign-in.

On a Space, Gradio's "Sign in with Hugging Face" is an OAuth code flow (through ``authlib``)
against ``$OPENID_PROVIDER_URL``: discovery document, ``/authorize`` (here: the user consents at
once), ``/token`` (code -> access token + a signed ID token whose nonce and audience authlib
checks against the JWKS). This serves exactly that, for one user whose access token is the one
the test chose (the local Hub accepts it), and records what it was asked.
"""

from __future__ import annotations

import base64
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route


@dataclass
class OIDCProvider:
    """Serves one user; ``start()``/``stop()`` or use it as a context manager."""

    client_id: str
    client_secret: str
    access_token: str
    username: str = "local-user"
    port: int = 0
    logins: int = 0
    tokens_issued: int = 0
    _codes: dict[str, dict[str, str]] = field(default_factory=dict)
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __post_init__(self) -> None:
        from joserfc.jwk import RSAKey

        self._key = RSAKey.generate_key(2048, parameters={"kid": "stand-in", "use": "sig"})

    # ---- endpoints

    async def _discovery(self, _request: Request) -> Response:
        base = self.url
        return JSONResponse(
            {
                "issuer": base,
                "authorization_endpoint": f"{base}/oauth/authorize",
                "token_endpoint": f"{base}/oauth/token",
                "userinfo_endpoint": f"{base}/oauth/userinfo",
                "jwks_uri": f"{base}/oauth/jwks",
                "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "token_endpoint_auth_methods_supported": [
                    "client_secret_basic",
                    "client_secret_post",
                ],
            }
        )

    async def _jwks(self, _request: Request) -> Response:
        return JSONResponse({"keys": [self._key.as_dict(private=False)]})

    async def _authorize(self, request: Request) -> Response:
        q = request.query_params
        if q.get("client_id") != self.client_id or q.get("response_type") != "code":
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        code = secrets.token_urlsafe(16)
        self._codes[code] = {
            "redirect_uri": q.get("redirect_uri", ""),
            "nonce": q.get("nonce", ""),
            "scope": q.get("scope", ""),
        }
        self.logins += 1
        target = q.get("redirect_uri", "")
        sep = "&" if "?" in target else "?"
        return RedirectResponse(
            f"{target}{sep}{urlencode({'code': code, 'state': q.get('state', '')})}",
            status_code=302,
        )

    def _client_ok(self, request: Request, form: dict[str, Any]) -> bool:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("basic "):
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
            return (user, password) == (self.client_id, self.client_secret)
        return (form.get("client_id"), form.get("client_secret")) == (
            self.client_id,
            self.client_secret,
        )

    async def _token(self, request: Request) -> Response:
        from joserfc import jwt

        form = dict(await request.form())
        grant = self._codes.pop(str(form.get("code", "")), None)
        if not self._client_ok(request, form):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if grant is None or grant["redirect_uri"] != form.get("redirect_uri"):
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        now = int(time.time())
        claims = {
            "iss": self.url,
            "sub": "1234567890",
            "aud": self.client_id,
            "iat": now,
            "exp": now + 3600,
            "nonce": grant["nonce"],
            "name": "Local User",
            "preferred_username": self.username,
            "profile": f"{self.url}/{self.username}",
            "picture": "",
        }
        id_token = jwt.encode({"alg": "RS256", "kid": "stand-in"}, claims, self._key)
        self.tokens_issued += 1
        return JSONResponse(
            {
                "access_token": self.access_token,
                "token_type": "bearer",
                "expires_in": 3600,
                "scope": grant["scope"],
                "id_token": id_token,
            }
        )

    # ---- lifecycle

    def start(self) -> OIDCProvider:
        app = Starlette(
            routes=[
                Route("/.well-known/openid-configuration", self._discovery),
                Route("/oauth/jwks", self._jwks),
                Route("/oauth/authorize", self._authorize),
                Route("/oauth/token", self._token, methods=["POST"]),
            ]
        )
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        server = uvicorn.Server(config)
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="oidc-stand-in", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the OpenID stand-in did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
        self._server = None

    def __enter__(self) -> OIDCProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
