"""The HTTP side of `pbem serve` (aiohttp, on the SMTP server's own loop;
off unless games.yaml has ``server.web``): server.py starts and stops it
and sets what every answer carries (no caching of token pages, a strict
Content-Security-Policy, no referrer); each family of pages is a module of
its own that adds its routes (unsubscribe.py: the List-Unsubscribe links
of observers' mail)."""
