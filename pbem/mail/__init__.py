"""The mail side: mail in (SMTP/LMTP in smtp.py, reading it in parse.py,
passwords and reply tokens in auth.py) and mail out (compose.py writes every
mail the server sends, replycap.py caps replies per address and day,
outbox.py sends them). The inbox pipeline (pbem/inbox.py) sits between."""
