# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The campaign layer (issue #37): long runs split into tasks on Dask distributed, recorded in
one SQLite file per campaign. `engine.py`: where tasks run (a LocalCluster by default, a running
scheduler, or a batch scheduler through dask-jobqueue) and how one runs (a capped process);
`db.py`: the results; `progress.py`: what a person watching sees; `show.py`: a campaign's state
and picture from its file. The kinds (what a fuzz, gate-level or ACVP campaign's tasks are) live
with the command, pqsoc/cli/campaign.py: this floor knows no block by name."""
