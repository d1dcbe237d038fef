"""``python -m codecite``."""

import sys

from codecite.cli import main

sys.exit(main())
