# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""sim/api_bench.py's reading of the API programs' result lines (the runs themselves are
test_mlkem_api.py's and test_mldsa_api.py's)."""
import pytest

from sim import api_bench


def _line(test, cycles, cpu):
    return {"test": test, "pass": True, "cycles": cycles, "cpu_cycles": str(cpu)}


def test_figures_per_op_with_the_resident_ratio():
    tests = [_line("mlkem768_decaps", 7000, 70000), _line("mlkem768_decaps_resident", 7000, 10500),
             _line("api_bad_param", 100, 5)]
    f = api_bench.figures(tests)
    assert f == {"sim_soc_mlkem768_decaps_acc_cycles": 7000,
                 "sim_soc_mlkem768_decaps_loading_cycles": 70000,
                 "sim_soc_mlkem768_decaps_resident_cycles": 10500,
                 "sim_soc_mlkem768_decaps_resident_over_acc": 1.5}


def test_differing_acc_cycles_between_the_calls_are_an_error():
    tests = [_line("mldsa65_verify", 17000, 90000), _line("mldsa65_verify_resident", 17001, 21000)]
    with pytest.raises(api_bench.ApiBenchError, match="mldsa65_verify"):
        api_bench.figures(tests)


def test_cpu_side_calls_take_the_slowest_passing_line():
    """The key checks: the largest of the 768 cases' cycles (another set's and a failed line
    left out); the DRBG and mu-stream lines as they are."""
    tests = [{"test": "mlkem768_check_ek_tg10_tc1", "pass": True, "cycles": "13000"},
             {"test": "mlkem768_check_ek_tg10_tc2", "pass": True, "cycles": "13900"},
             {"test": "mlkem1024_check_ek_tg12_tc1", "pass": True, "cycles": "18000"},
             {"test": "mlkem768_check_dk_tg9_tc3", "pass": False, "cycles": "99999"},
             {"test": "mlkem768_check_dk_tg9_tc4", "pass": True, "cycles": "6600"},
             {"test": "drbg_instantiate_generate32", "pass": True, "cycles": "37800"},
             {"test": "api_mu_stream", "pass": True, "cycles": 98979}]
    assert api_bench.figures(tests) == {"sim_soc_mlkem768_check_ek_cycles": 13900,
                                        "sim_soc_mlkem768_check_dk_cycles": 6600,
                                        "sim_soc_drbg_instantiate_generate32_cycles": 37800,
                                        "sim_soc_mldsa65_mu_stream_10000B_cycles": 98979}
