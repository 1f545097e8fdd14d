"""pbem: the host. Mail in and out, storage, scheduling, the command line.

The rule engines live in ``adjudicator``; the host reaches a game only
through ``adjudicator.GAMES``.
"""

__version__ = "0.1.0"
