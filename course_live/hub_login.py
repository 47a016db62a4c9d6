"""The instructor's page behind a JupyterHub's own login: OAuth with the hub, as a hub service (issue 46).

Run as a hub service (docs/live-lab.md has the ``jupyterhub_config.py`` snippet),
the server finds the hub through the variables the hub gives it
(``JUPYTERHUB_API_TOKEN``, ``JUPYTERHUB_CLIENT_ID``, ``JUPYTERHUB_SERVICE_PREFIX``,
…) and lets ``jupyterhub.services.auth.HubOAuth`` do the work: a browser without a
hub cookie is sent to the hub's login (with PKCE), comes back to
``oauth_callback``, and its token is kept in an HttpOnly cookie; each request asks
the hub who holds it and whether the hub grants them this service
(``access:services!service=<name>``; a hub role gives it to the instructors).
"""

from __future__ import annotations

import secrets

from jupyterhub.services.auth import HubOAuth
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from .messages import MESSAGES, page_language


class HubOAuthLogin:
    def __init__(self) -> None:
        self.auth = HubOAuth(cache_max_age=60)

    @property
    def prefix(self) -> str:
        return str(self.auth.base_url)

    async def user(self, request: Request) -> dict[str, object] | None:
        token = request.cookies.get(self.auth.cookie_name)
        if not token:
            return None
        model = await self.auth.user_for_token(token, sync=False)
        return model if isinstance(model, dict) else None

    async def refusal(self, request: Request, *, page: bool) -> Response | None:
        language = page_language(request.query_params.get("lang"), request.headers.get("accept-language"))
        user = await self.user(request)
        if user is not None and self.auth.check_scopes(self.auth.access_scopes, user):
            return None
        if user is not None:
            return JSONResponse(
                {"error": MESSAGES("{user} may not see the live lab", language).format(user=user.get("name"))},
                status_code=403,
            )
        if not page:
            return JSONResponse({"error": MESSAGES("sign in to the hub first", language)}, status_code=401)
        return self._to_login(request)

    def _to_login(self, request: Request) -> Response:
        verifier, challenge, method = self.auth.generate_pkce_code_challenge()
        next_url = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        state = self.auth.generate_state(next_url, code_verifier=verifier)
        login = f"{self.auth.login_url}&state={state}&code_challenge={challenge}&code_challenge_method={method}"
        response = RedirectResponse(login, status_code=302)
        response.set_cookie(
            self.auth.state_cookie_name, state, max_age=600, path=self.prefix, httponly=True, samesite="lax"
        )
        return response

    async def callback(self, request: Request) -> Response:
        """``oauth_callback``: the hub sends the browser back with a code; the state must be the one we set."""
        code, state = request.query_params.get("code"), request.query_params.get("state")
        kept = request.cookies.get(self.auth.state_cookie_name)
        if not code or not state or not kept or not secrets.compare_digest(state, kept):
            language = page_language(request.query_params.get("lang"), request.headers.get("accept-language"))
            return JSONResponse({"error": MESSAGES("the hub's answer does not match; sign in again", language)}, 403)
        verifier = self.auth.get_code_verifier(state)
        next_url = self.auth.get_next_url(state)
        self.auth.clear_oauth_state(state)
        token = await self.auth.token_for_code(code, code_verifier=verifier, sync=False)
        response = RedirectResponse(next_url if next_url.startswith(self.prefix) else self.prefix, status_code=302)
        response.delete_cookie(self.auth.state_cookie_name, path=self.prefix)
        response.set_cookie(self.auth.cookie_name, token, path=self.prefix, httponly=True, samesite="lax")
        return response
