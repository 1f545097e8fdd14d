"""``python -m pbem.commands [docs/mail.md]``: the command tables of the
mail guide, as the registry makes them; with a file, written into it."""

import sys
from pathlib import Path

from pbem.commands import REGISTRY

if len(sys.argv) > 1:
    guide = Path(sys.argv[1])
    guide.write_text(REGISTRY.write_tables(guide.read_text()))
else:
    print("\n".join(REGISTRY.player_table() + [""] + REGISTRY.master_table()))
