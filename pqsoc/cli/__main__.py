# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`python -m pqsoc.cli`: the same as the `pqsoc` command."""
import sys

from pqsoc.cli import main

sys.exit(main())
