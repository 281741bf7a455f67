"""URLs a user gave (or a client metadata document names): guarded before anything is fetched.

``ssrf`` vets a URL and the addresses its host resolves to; ``download`` streams a PDF through that guard with
size and time caps; ``fetch`` chooses between it and the source-routed client. Below both the OAuth server
(client metadata documents) and the full-text services (PDF downloads).
"""
