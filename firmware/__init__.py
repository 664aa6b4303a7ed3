# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Firmware for the pqsoc SoC: build.py compiles programs/*.c with lib/."""
