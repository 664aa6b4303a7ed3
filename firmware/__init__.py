"""Firmware for the pqsoc SoC: build.py compiles programs/*.c with lib/."""
