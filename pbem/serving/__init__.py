"""Serving: the server process (the SMTP front, the worker, the sender and
the scheduler) and the lease that lets one node at a time do the work."""
