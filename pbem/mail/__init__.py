"""The mail side: mail in (SMTP/LMTP in smtp.py, reading it in parse.py,
passwords and reply tokens in auth.py), a stored mail's way through the
host as named steps (pipeline.py; a game's section of a mail: section.py;
who may act for a seat: credentials.py), and mail out (compose.py writes
every mail the server sends, replycap.py caps replies per address and day,
outbox.py sends them). The queue that feeds the pipeline is pbem/inbox.py;
the commands it runs are pbem/commands/."""
