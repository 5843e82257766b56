"""``python -m llrcore.cli``, the same as the ``llrcore`` command."""
import sys

from . import main

sys.exit(main())
