# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Check or add the SPDX headers of the project's source files (pqsoc/spdx.py has the rules).

    python tools/spdx.py --check
    python tools/spdx.py --fix
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pqsoc.spdx import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
