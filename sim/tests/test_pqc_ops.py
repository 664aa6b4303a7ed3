# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""The real operations on the full SoC: firmware/programs/pqc_ops.c runs ML-KEM-768 decaps
(valid and implicitly rejected ciphertext) and ML-DSA-65 signing (4 iterations, the median,
and 1) as whole ACC programs loaded through firmware/lib/acc.c, through `pqsoc sim run`.
Outputs are compared in the firmware with kyber-py's K and dilithium-py's signature (generated
at build time); here: every test passes, the ACC's CYCLES equals the ISS's count for the same
program and DMEM image (firmware/build.py pqc_ops(), computed at build time), the CPU-side
figures are consistent. ~1.3 M simulated cycles."""

from firmware import build as fw

PQC_TESTS = ["mlkem768_decaps", "mlkem768_decaps_reject", "mldsa65_sign", "mldsa65_sign_best"]


def test_pqc_ops_in_pqsoc_sim_run(sim_run_json):
    res = sim_run_json("pqc_ops", timeout_s=240)
    assert [t["test"] for t in res["tests"]] == PQC_TESTS
    assert res["summary"] == {"summary": "pqc_ops", "tests": 4, "passed": 4, "failed": 0}
    # ISS cycles = RTL cycles: the ISS figure of the same program and image (build time)
    ops = {op["name"]: op for op in fw.pqc_ops()}
    for t in res["tests"]:
        op = ops[t["test"]]
        assert t["pass"] and t["err_bits"] == 0 and t["rc"] == 0, t
        assert t["cycles"] == t["iss_cycles"] == op["iss_cycles"], t
        assert t["out_bytes"] == len(op["exp"]) and t["imem_bytes"] == 4 * len(op["words"])
        assert t["cpu_cycles"] > t["cycles"]
        parts = t["wipe_cycles"] + t["imem_cycles"] + t["dmem_cycles"] + t["cpu_cycles"] + \
            t["read_cycles"]
        assert parts == t["total_cycles"]   # the split covers the whole call
        if op["prog"] == "mldsa":
            assert t["iterations"] == t["exp_iterations"] == op["iterations"]
    t = {x["test"]: x for x in res["tests"]}
    # constant time: the rejection path costs the same ACC cycles
    assert t["mlkem768_decaps"]["cycles"] == t["mlkem768_decaps_reject"]["cycles"]
    assert t["mldsa65_sign"]["cycles"] > t["mldsa65_sign_best"]["cycles"]


def test_pqc_ops_references():
    """The vectors themselves: the rejection K differs from the encapsulated one, the two
    ML-DSA cases take 4 and 1 iterations in dilithium-py and their signatures differ."""
    ops = {op["name"]: op for op in fw.pqc_ops()}
    assert ops["mlkem768_decaps"]["exp"] != ops["mlkem768_decaps_reject"]["exp"]
    assert [ops[n]["iterations"] for n in ("mldsa65_sign", "mldsa65_sign_best")] == [4, 1]
    assert ops["mldsa65_sign"]["exp"] != ops["mldsa65_sign_best"]["exp"]
    assert all(len(ops[n]["exp"]) == 3309 for n in ("mldsa65_sign", "mldsa65_sign_best"))
