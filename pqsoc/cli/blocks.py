# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The blocks the command line knows, by name: each block's own declaration (ip/kmac/block.py,
ip/acc/block.py, soc/block.py) registered with the flow, with the verification hooks that live
on floors above the declaration wired in here (a benchmark in the block's dv/; the silicon SoC's
gate-level run, which is firmware on sim/'s harness)."""
import dataclasses
import functools

from ip.acc import block as acc_block
from ip.acc.dv import gls as acc_gls
from ip.acc.dv import jobs as acc_jobs
from ip.entropy import block as entropy_block
from ip.entropy.dv import gls as entropy_gls
from ip.kmac import block as kmac_block
from ip.kmac.dv import bench as kmac_bench
from pqsoc.flow.block import BLOCKS, Block, emit_amaranth, get, register
from sim import api_bench
from sim import caravel as caravel_sim
from sim import silicon as silicon_sim
from soc import block as soc_block
from soc import caravel_openlane, flat_floorplan

__all__ = ["BLOCKS", "Block", "emit_amaranth", "get", "register"]


def _kmac_bench() -> dict:
    return kmac_bench.measure(rounds_per_cycle=kmac_block.ROUNDS_PER_CYCLE)


def _acc_bench() -> dict:
    """The kernels and ML-KEM-768 decaps (acc_jobs.measure), ML-KEM-512 / -1024 decaps, and the
    keygen / encaps / ML-DSA verify programs of every parameter set, each on the ISS and the RTL
    (equal cycles and DMEM by check); ML-DSA-65 signing in the taped-out 16 KiB memories
    (sign16) over 20 signatures on the ISS (min / median / mean / max: issue 24's table)."""
    return {**acc_jobs.measure(rtl=True), **acc_jobs.measure_mlkem_decaps_sets(rtl=True, params=(512, 1024)),
            **acc_jobs.measure_mlkem_keygen(rtl=True),
            **acc_jobs.measure_mlkem_encaps(rtl=True), **acc_jobs.measure_mldsa_keygen(rtl=True),
            **acc_jobs.measure_mldsa_verify(rtl=True),
            **acc_jobs.measure_mldsa_sign(n=20, seed=2, program="sign16")}


register(kmac_block.KECCAK)
register(kmac_block.KECCAK_MASKED)
register(kmac_block.KMAC_UNMASKED)
# The entropy source: its gate-level run puts the rings' simulation model in place of their cells.
register(dataclasses.replace(entropy_block.ENTROPY_SRC, gls=entropy_gls.gls_entropy))
# The KMAC and the ACC are flat logic in the wrapper's one run (soc/doc/caravel.md "The physical
# architecture"): no configuration of their own.
register(dataclasses.replace(kmac_block.KMAC, bench=_kmac_bench, openlane=None))
register(dataclasses.replace(acc_block.ACC, bench=_acc_bench, gls=acc_gls.gls_acc, gls_prepare=acc_gls.prepare_acc,
                             openlane=None))
# Block soc's benchmark: the firmware API end to end on the simulation SoC (sim/api_bench.py).
for _b, _bench in ((soc_block.SOC, api_bench.measure), (soc_block.SOC_ACC32K, None)):
    register(dataclasses.replace(_b, gls=functools.partial(silicon_sim.gls_soc, block=_b.name),
                                 gls_prepare=functools.partial(silicon_sim.prepare_soc, block=_b.name),
                                 bench=_bench))
# The wrapper's configuration comes from the flat floorplan (soc/caravel_openlane.py).
register(dataclasses.replace(soc_block.CARAVEL, gls=caravel_sim.gls_caravel, gls_prepare=caravel_sim.prepare_caravel,
                             openlane=caravel_openlane.wrapper_config,
                             openlane_inputs=caravel_openlane.wrapper_inputs,
                             openlane_check=caravel_openlane.wrapper_check))
# The Caravel wrapper's floorplan is the taped-out SoC's (ACC 16 + 16 KiB): block soc's; the
# 32 KiB-ACC variant has none (its ACC alone is larger than the wrapper, soc/README.md).
register(dataclasses.replace(BLOCKS["soc"], floorplan=flat_floorplan.ppa_entry))
