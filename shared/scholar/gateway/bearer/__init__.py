"""Bearer tokens: the contract between the authorization server (``scholar.gateway.auth``) and the gateway
(``scholar.gateway.mcp``).

A core package below both (they sit on one floor and import neither each other): the scopes and what needs
them, the URLs a deployment is known by (issuer, resource, metadata), the access-token claims and the offline
verifier, and the gateway's short cache of refresh-family status. PyJWT is imported only where a token is read.
"""
