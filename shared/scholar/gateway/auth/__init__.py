"""The OAuth 2.1 authorization server of AuthMode=OAuth (issue 21; DESIGN §12; docs/security.md).

A Starlette app (``scholar.gateway.auth.app.create_auth_app``) that the auth Lambda runs under Mangum and the local
server mounts beside the gateway: metadata (RFC 8414, RFC 9728), authorize with PKCE S256 only, the upstream
OpenID Connect sign-in and the consent page, token (codes and rotating refresh tokens), registration (RFC
7591) and client metadata documents, revocation (RFC 7009). It never imports ``mcp`` (cold start, and the
SDK's server handlers have no client metadata documents, RFC 9207 ``iss`` or required RFC 8707 resource).
"""
