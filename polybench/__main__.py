"""`python -m polybench`: see polybench/run.py."""

import sys

from .run import main

sys.exit(main())
