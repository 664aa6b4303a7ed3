# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ACC instruction-set simulator (golden model for the RTL).

Small files named after what they model (as OpenTitan's otbnsim):
  gpr.py    32 x 32-bit GPRs, x0 = 0        wdr.py   16 x 256-bit WDRs and lane helpers
  dmem.py   byte-addressed DMEM              csr.py   CSRs and WSRs named in isa.yml
  loop.py   hardware loop stack              insn.py  one function per instruction
  errors.py error bits from isa.yml          kmac.py  the KMAC side-load port, cycle by cycle
  timing.py result latency and unit interval  stream_unit.py  the stream unit (samplers)
  machine.py  class Iss: fetch / decode / execute / cycles
Decoding goes through ip.acc.tools.isa only; cycles come from isa.yml.
"""
from ip.acc.iss.errors import AccError, Unmodelled
from ip.acc.iss.machine import Halt, Iss

__all__ = ["AccError", "Halt", "Iss", "Unmodelled"]
