"""``python -m pbem.cli``: the same as the ``pbem`` command."""

import sys

from pbem.cli.main import main

sys.exit(main())
