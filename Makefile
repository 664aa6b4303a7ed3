# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
# pqsoc: the user interface. `make setup`, then `make test`; `make report` is the main job.
SHELL := /bin/bash
VENV := .venv
PQSOC := $(VENV)/bin/pqsoc
PYTEST := $(VENV)/bin/pytest
# `make test` on every core: pytest-xdist workers (TEST_JOBS=0: one process, no workers); conftest.py
# keeps the tests that share the SoC's build folders on one worker
TEST_JOBS ?= auto
BLOCKS ?=
# `make report`'s gate-level t-test of the masked ML-KEM-768 decapsulation: the issue's 1e4 traces
# are ~19 core-hours (~6.8 s a trace on a core, docs/side_channels.md), ~9.5 h on a 2-core machine;
# CAMPAIGN_OPTS sends the campaign to a cluster, e.g. "--cluster slurm --jobs 10" or
# "--scheduler tcp://HOST:8786" (docs/campaigns.md)
SCA_GLS_TRACES ?= 10000
# ... and at RTL the issue's 1e5 traces, ~5.6 core-hours (~0.2 s a trace on a core)
SCA_RTL_TRACES ?= 100000
CAMPAIGN_OPTS ?=
# Caravel's fixed user-project files (soc/caravel.py); `make setup` fetches them into .caravel
export CARAVEL_ROOT ?= $(CURDIR)/.caravel
# Verilator's C++ builds go through ccache where it is installed (`make setup` installs it): a model
# whose generated C++ is unchanged compiles from the cache, also in another clone (paths are taken
# relative to the clone). A cold cache builds as without it.
export OBJCACHE ?= $(if $(shell command -v ccache),ccache)
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_MAXSIZE ?= 20G

.PHONY: help setup test report synth sta harden layout clean

help:
	@echo "make setup    install pinned apt + Python packages (.venv) and check the PDK (PDK_ROOT)"
	@echo "make test     run every test of the project"
	@echo "make report   synthesis + STA + benchmarks (ppa.json/md), a PPA sweep (ppa_sweep.json), RTL vs"
	@echo "              gate-level cycles (gls.json), leakage t-tests of ACC programs (sca/),"
	@echo "              firmware self-tests and ML-KEM / ML-DSA from firmware on the full-SoC"
	@echo "              simulation (sim_*.json), NIST ACVP conformance on the ISS (acvp.json, a campaign)"
	@echo "              -> reports/, then tapeout.json"
	@echo "make harden   LibreLane hardening of kmac, acc, then the Caravel wrapper (BLOCKS=... for others;"
	@echo "              needs the Nix shell: OpenROAD is not installable here)"
	@echo "make layout   local place-and-route with Coriolis + Magic DRC (BLOCKS=..., default keccak)"
	@echo "make clean    remove build/ and reports/"

setup:
	bash tools/setup.sh

test: $(PQSOC)
	$(PQSOC) pdk check
	$(PYTEST) -q -n $(TEST_JOBS) --dist loadgroup --durations=30 --junitxml=reports/pytest.xml

report: $(PQSOC)
	$(PQSOC) ppa $(BLOCKS)
	@# a PPA sweep on the campaign layer (a point per task, folders under build/sweep): area against
	@# fmax of the Keccak core and the KMAC over clock period x ABC choice computation, Pareto front
	$(PQSOC) campaign sweep keccak kmac --periods 5,10,20 --abc-dch on,off --name ppa_sweep --json reports/ppa_sweep.json
	@# the floorplan's estimates may fail (routing channels, band utilisation): the report goes
	@# on, and tapeout.json and `pqsoc tapeout check` carry the verdict
	-$(PQSOC) floorplan --update-inputs
	$(PQSOC) pnr-config    # the macros' dies and places follow the floorplan (commit pnr/ with it)
	@# gate level: a task per block and random initial state on the campaign layer (models built once)
	$(PQSOC) campaign gls $(BLOCKS) --seeds 2 --json reports/gls.json
	$(PQSOC) soc build
	$(PQSOC) soc firmware selftest kmac_selftest acc_selftest entropy_selftest pqc_ops pqc_mlkem_api pqc_mldsa_api
	$(PQSOC) sim run build/firmware/selftest.bin --json reports/sim_selftest.json
	$(PQSOC) sim run build/firmware/kmac_selftest.bin --json reports/sim_kmac_selftest.json
	$(PQSOC) sim run build/firmware/acc_selftest.bin --json reports/sim_acc_selftest.json
	$(PQSOC) sim run build/firmware/entropy_selftest.bin --json reports/sim_entropy_selftest.json
	$(PQSOC) sim run build/firmware/pqc_ops.bin --json reports/sim_pqc_ops.json
	$(PQSOC) sim run build/firmware/pqc_mlkem_api.bin --json reports/sim_mlkem_api.json
	$(PQSOC) sim run build/firmware/pqc_mldsa_api.bin --json reports/sim_mldsa_api.json
	$(PQSOC) sim caravel selftest mlkem_preloaded caravel_policy --json reports/sim_caravel.json
	$(PQSOC) campaign fuzz --count 10000 --seed 1 --kmac --name acc_fuzz --json reports/acc_fuzz.json   # on Dask: docs/campaigns.md
	@# the campaign layer's own figures (serial against campaign fuzz, per-task cost, scheduler
	@# throughput, projections to 10 / 100 nodes; ~10 min, nothing else running)
	$(PQSOC) campaign measure --json reports/campaigns.json
	$(VENV)/bin/python -m ip.acc.dv.jobs mldsa65_sign --n 200 --seed 2 --json reports/mldsa65_sign.json
	$(VENV)/bin/python -m ip.acc.dv.bench_mlkem --n 1000 --seed 1 --json reports/mlkem_bench.json
	$(VENV)/bin/python -m ip.acc.dv.bench_mldsa --n 1000 --seed 1 --json reports/mldsa_bench.json
	$(VENV)/bin/python -m ip.acc.dv.jobs mldsa65_sign --program sign16 --n 200 --seed 2 --json reports/mldsa65_sign16.json
	@# every check without OpenROAD, recorded for tapeout.json (its failures are findings that
	@# `pqsoc tapeout check` reports, so the report goes on past them)
	-$(PQSOC) pnr check --json reports/pnr_check.json
	$(PQSOC) tapeout submission   # third_party/used_external_repos.csv, lvs/*/lvs_config.json (commit them)
	@# NIST ACVP conformance, every case of every ML-KEM / ML-DSA mode under ACVP_ROOT on the ISS
	@# (855 cases, ~51 min on 2 shared cores; ML-DSA sigGen ~37 of them). A failed case is a finding
	@# that tapeout.json records and `pqsoc tapeout check` reports, so the report goes on past it
	-$(PQSOC) campaign acvp --engine iss --name acvp --json reports/acvp.json
	@# at gate level (the ACC netlist `pqsoc ppa` synthesized; ISS = gate level checked per case):
	@# one ML-KEM-768 decapsulation and one ML-DSA-65 sigVer case of NIST's, ~45 s
	-$(PQSOC) acvp report --engine gls --sample 1 --group ML-KEM-encapDecap-FIPS203:5 --group ML-DSA-sigVer-FIPS204:3 --json reports/acvp_gls.json
	@# NIST's 30 decapsulation cases through the first-order masked program (#38)
	$(PQSOC) acvp report --masked --group ML-KEM-encapDecap-FIPS203:4 --group ML-KEM-encapDecap-FIPS203:5 --group ML-KEM-encapDecap-FIPS203:6 --json reports/acvp_masked.json
	@# one case of each of the five modes through the firmware API on the simulated SoC (seconds a
	@# case once the SoC's model is built); ML-DSA's pure, pre-hash and internal forms, and with
	@# seed 3 the pure sigGen and sigVer cases have M' over the programs' buffers (the firmware
	@# streams their mu through the KMAC block)
	-$(PQSOC) acvp report --engine soc --sample 1 --seed 3 --group ML-KEM-keyGen-FIPS203:2 --group ML-KEM-encapDecap-FIPS203:2 --group ML-KEM-encapDecap-FIPS203:5 --group ML-DSA-keyGen-FIPS204:2 --group ML-DSA-sigGen-FIPS204:15 --group ML-DSA-sigGen-FIPS204:4 --group ML-DSA-sigGen-FIPS204:10 --group ML-DSA-sigVer-FIPS204:3 --group ML-DSA-sigVer-FIPS204:10 --json reports/acvp_soc.json
	@# side channels (docs/side_channels.md): fixed-vs-random t-tests on the ACC's RTL power model,
	@# a campaign of chunks: today's unmasked ML-KEM-768 decapsulation (flagged) and the control
	$(PQSOC) campaign tvla mlkem768_decaps_unmasked --traces 2000 --chunk 250 --name sca_mlkem768_unmasked --json reports/sca/mlkem768_decaps_unmasked.json
	$(PQSOC) campaign tvla mlkem768_decaps_control --traces 2000 --chunk 250 --order 2 --name sca_mlkem768_control --json reports/sca/mlkem768_decaps_control.json
	@# the first masked pieces (#38): cycles against the unmasked decryption, then their t-tests
	$(VENV)/bin/python -m ip.acc.dv.bench_masked --n 50 --seed 1 --json reports/masked_bench.json
	@# the decryption and its decoding gadget (~0.25 s a trace) on every register, memory port and
	@# bus between units (docs/side_channels.md: they leaked on the operand buses before the ports
	@# were blanked and their schedule disciplined); the decryption with a fixed ciphertext, so the
	@# gadget's input is fixed in the fixed class, and with fresh ones
	$(PQSOC) campaign tvla mlkem768_decrypt_masked_fixed_public --traces 10000 --chunk 500 --name sca_decrypt768_masked_fixed_public --json reports/sca/mlkem768_decrypt_masked_fixed_public.json
	$(PQSOC) campaign tvla mlkem768_decrypt_masked --traces 1000 --chunk 500 --name sca_decrypt768_masked --json reports/sca/mlkem768_decrypt_masked.json
	$(PQSOC) campaign tvla mlkem_decode_masked --traces 10000 --chunk 500 --order 2 --name sca_decode_masked --json reports/sca/mlkem_decode_masked.json
	@# its seeded leaks: flagged
	$(PQSOC) campaign tvla mlkem_decode_masked_sum --traces 500 --chunk 250 --name sca_decode_sum --json reports/sca/mlkem_decode_masked_sum.json
	$(PQSOC) campaign tvla mlkem_decode_masked_no_fresh --traces 2000 --chunk 500 --name sca_decode_no_fresh --json reports/sca/mlkem_decode_masked_no_fresh.json
	@# G(m' || h), J and the PRF through the KMAC's masked mode (~0.19 s a trace; G and J with
	@# their public input fixed, so their outputs are fixed in the fixed class); the secret
	@# combined: flagged
	$(PQSOC) campaign tvla mlkem_g_masked_fixed_public --traces 10000 --chunk 500 --name sca_g_masked_fixed_public --json reports/sca/mlkem_g_masked_fixed_public.json
	$(PQSOC) campaign tvla mlkem_g_masked_combined --traces 200 --chunk 100 --name sca_g_combined --json reports/sca/mlkem_g_masked_combined.json
	$(PQSOC) campaign tvla mlkem_j_masked_fixed_public --traces 10000 --chunk 500 --name sca_j_masked_fixed_public --json reports/sca/mlkem_j_masked_fixed_public.json
	$(PQSOC) campaign tvla mlkem_j_masked_combined --traces 200 --chunk 100 --name sca_j_combined --json reports/sca/mlkem_j_masked_combined.json
	$(PQSOC) campaign tvla mlkem_prf_masked --traces 10000 --chunk 500 --name sca_prf_masked --json reports/sca/mlkem_prf_masked.json
	$(PQSOC) campaign tvla mlkem_prf_masked_combined --traces 200 --chunk 100 --name sca_prf_combined --json reports/sca/mlkem_prf_masked_combined.json
	@# the PRF's outputs sampled by the stream unit's masked CBD mode (~0.3 s a trace); the
	@# sampled shares joined in a register after it: flagged
	$(PQSOC) campaign tvla mlkem_cbd_masked --traces 10000 --chunk 500 --name sca_cbd_masked --json reports/sca/mlkem_cbd_masked.json
	$(PQSOC) campaign tvla mlkem_cbd_masked_joined --traces 2000 --chunk 500 --name sca_cbd_joined --json reports/sca/mlkem_cbd_masked_joined.json
	@# m''s B2A by the stream unit's b2a1m (~0.05 s a trace); its outputs joined: flagged
	$(PQSOC) campaign tvla mlkem_b2a_masked --traces 10000 --chunk 1000 --name sca_b2a_masked --json reports/sca/mlkem_b2a_masked.json
	$(PQSOC) campaign tvla mlkem_b2a_masked_joined --traces 1000 --chunk 500 --name sca_b2a_joined --json reports/sca/mlkem_b2a_masked_joined.json
	@# the masked re-encryption (~0.27 s a trace): m' || r' fixed vs random, a fresh key pair each
	@# trace; the last noise polynomial's shares joined in a register, word by word: flagged
	$(PQSOC) campaign tvla mlkem768_encrypt_masked --traces 10000 --chunk 500 --name sca_encrypt768_masked --json reports/sca/mlkem768_encrypt_masked.json
	$(PQSOC) campaign tvla mlkem768_encrypt_masked_joined --traces 2000 --chunk 500 --name sca_encrypt768_joined --json reports/sca/mlkem768_encrypt_masked_joined.json
	@# the masked re-encryption check (~0.35 s a trace): u', v' compressing to a fixed c vs random;
	@# without the DOM ANDs' fresh words: flagged
	$(PQSOC) campaign tvla mlkem768_compare_masked --traces 10000 --chunk 500 --name sca_compare768_masked --json reports/sca/mlkem768_compare_masked.json
	$(PQSOC) campaign tvla mlkem768_compare_masked_no_fresh --traces 500 --chunk 250 --name sca_compare768_no_fresh --json reports/sca/mlkem768_compare_masked_no_fresh.json
	@# the whole masked decapsulation (~0.2 s a trace): s_hat and z fixed vs random, ek, H(ek)
	@# and c fresh in both classes (every trace an implicit rejection); SCA_RTL_TRACES above
	$(PQSOC) campaign tvla mlkem768_decaps_masked --traces $(SCA_RTL_TRACES) --chunk 500 $(CAMPAIGN_OPTS) --name sca_decaps768_masked --json reports/sca/mlkem768_decaps_masked.json
	@# the same at gate level (the netlist `pqsoc ppa` synthesized; every net's toggles, grouped
	@# by unit: ip/acc/dv/gls_power.py; the model builds once, ~11 min): the unmasked decapsulation
	@# flagged, the decoding gadget's seeded leak caught, then the masked decapsulation (~6.8 s a
	@# trace on a core; SCA_GLS_TRACES, CAMPAIGN_OPTS above; chunks of 50: a task's setup, the
	@# netlist's staleness check and instrumentation, is ~30 s of a core)
	$(PQSOC) campaign tvla mlkem768_decaps_unmasked --engine gls --traces 100 --chunk 50 --name sca_mlkem768_unmasked_gls --json reports/sca/mlkem768_decaps_unmasked_gls.json
	$(PQSOC) campaign tvla mlkem_decode_masked_sum --engine gls --traces 100 --chunk 50 --name sca_decode_sum_gls --json reports/sca/mlkem_decode_masked_sum_gls.json
	$(PQSOC) campaign tvla mlkem768_decaps_masked --engine gls --traces $(SCA_GLS_TRACES) --chunk 50 $(CAMPAIGN_OPTS) --name sca_decaps768_masked_gls --json reports/sca/mlkem768_decaps_masked_gls.json
	@# the masked Keccak-f core (its cycle model's registers, ~70 s a million traces): first order
	@# passes; the second order of both shares' sum leaks, as any two-share design's (reported)
	$(PQSOC) sca tvla keccak_masked --traces 1000000 --order 2
	$(PQSOC) sca tvla keccak_masked_no_fresh --traces 20000 --expect-leak
	$(PQSOC) sca tvla keccak_masked_no_mask --traces 200 --expect-leak
	@# ... and its netlist (`pqsoc ppa` synthesized it): every net's toggles, on the campaign layer
	@# (the model builds once, ~20 min; ~0.16 s a trace); the unshared input: flagged
	$(PQSOC) campaign tvla keccak_masked --engine gls --traces 10000 --chunk 500 --name sca_keccak_masked_gls --json reports/sca/keccak_masked_gls.json
	$(PQSOC) sca tvla keccak_masked_no_mask --engine gls --traces 200 --batch 50 --expect-leak --json reports/sca/keccak_masked_no_mask_gls.json
	$(PQSOC) tapeout write

# Without BLOCKS `pqsoc harden` hardens the chip: Caravel's wrapper, the one run of the flat
# architecture (soc/caravel_openlane.py HARDEN_ORDER; block keccak, the Keccak core alone, only
# on request).
harden: $(PQSOC)
	$(PQSOC) harden $(BLOCKS)

layout: $(PQSOC)
	$(PQSOC) synth $(or $(BLOCKS),keccak)
	$(PQSOC) layout $(or $(BLOCKS),keccak)

$(PQSOC):
	@echo "run 'make setup' first" >&2; exit 1

clean:
	rm -rf build reports
