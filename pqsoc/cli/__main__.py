"""`python -m pqsoc.cli`: the same as the `pqsoc` command."""
import sys

from pqsoc.cli import main

sys.exit(main())
