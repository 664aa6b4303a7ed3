# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""`pqsoc tapeout write` / `pqsoc tapeout check`: tapeout.json from the reports (pqsoc/flow/tapeout.py),
with this project's facts taken from where they are declared (block registry, ip/acc/block.py,
soc/target.py, ip/common); `pqsoc tapeout submission`: the submission files written from those
facts (third_party/used_external_repos.csv, lvs/user_project_wrapper/lvs_config.json)."""
import re
import sys

from pqsoc import REPO, FlowError
from pqsoc.flow import submission as subfiles
from pqsoc.flow.harden import SUBMISSION_VIEWS
from pqsoc.flow import tapeout as flow
from soc.caravel_openlane import HARD_MACROS, WRAPPER_BLOCK   # blocks hardened on their own (none: flat), the wrapper

WRAPPER = "user_project_wrapper"      # the cell Caravel's user project area takes (fixed name)
WRAPPER_RTL_DIR = "build/rtl/caravel"     # where `pqsoc soc caravel` writes the wrapper and user_defines.v
CORE_BLOCK = "soc"                    # the SoC inside the wrapper
# What a report describes (the staleness rule, pqsoc/flow/tapeout.py): the design's sources, the
# flow that measures them, the block registry and the pinned tools. Docs, tests, the command
# line's other modules and tapeout.json itself do not age a report.
DESIGN_PATHS = ("ip", "soc", "firmware", "sim", "pqsoc/flow", "pqsoc/cli/blocks.py", "pnr",
                "requirements.txt", "tools/setup.sh", "flake.nix", "Makefile")
# The test reports `make test` / `make report` write.
TESTS = (("pytest (make test)", "reports/pytest.xml", "junit"),
         ("firmware self-test (RTL SoC)", "reports/sim_selftest.json", "sim"),
         ("firmware KMAC self-test (RTL SoC)", "reports/sim_kmac_selftest.json", "sim"),
         ("firmware ACC self-test (RTL SoC)", "reports/sim_acc_selftest.json", "sim"),
         ("firmware PQC operations (RTL SoC)", "reports/sim_pqc_ops.json", "sim"),
         ("ACC random programs vs ISS (RTL)", "reports/acc_fuzz.json", "counts"),
         ("gate level vs RTL (pqsoc gls)", "reports/gls.json", "gls"))


# The external repositories the submitted design is built from. The version of each is pinned
# where the project pins it (requirements.txt, tools/setup.sh, pqsoc/flow/pdk.py); this table only
# says which repository and commit a pinned release is. A pin without an entry here stops
# `pqsoc tapeout submission`; an entry whose commit is not known yet holds the release tag, and
# `pqsoc tapeout check` names it.
RELEASES = {
    # pythondata-cpu-ibex packs Ibex' RTL; the package records the Ibex commit (data_git_hash)
    ("pythondata-cpu-ibex", "0.0.post2937"): ("https://github.com/lowRISC/ibex",
                                             "5da1679f360b00ae330aab33cc8d79d73dfabb98"),
    ("litex", "2024.12"): ("https://github.com/enjoy-digital/litex", "a1ea5a2f60c34656f426f8bf9961afbaeffa4fdd"),
    ("migen", "0.10.0"): ("https://github.com/m-labs/migen", "0.10.0"),
    ("amaranth", "0.5.10"): ("https://github.com/amaranth-lang/amaranth", "v0.5.10"),
}
USES = {"pythondata-cpu-ibex": "Ibex RISC-V core (the SoC's CPU), SystemVerilog RTL",
        "litex": "LiteX SoC builder: interconnect, peripherals, the CPU wrapper",
        "migen": "Migen, the HDL LiteX describes the SoC in",
        "amaranth": "Amaranth HDL: the KMAC and ACC blocks are written in it"}


def _pins(path) -> dict[str, str]:
    """name -> version of each `name==version` line."""
    out = {}
    for line in path.read_text().splitlines():
        m = re.match(r"\s*([A-Za-z0-9_.-]+)==([^\s#;]+)", line)
        if m:
            out[m.group(1).lower()] = m.group(2)
    return out


def _shell_var(path, name: str) -> str:
    m = re.search(rf"^{name}=(\S+)$", path.read_text(), re.M)
    if not m:
        raise FlowError(f"{path.relative_to(REPO)} sets no {name}")
    return m.group(1)


def external_repos() -> tuple[subfiles.ExternalRepo, ...]:
    from pqsoc.flow.pdk import open_pdks_rev
    pins = _pins(REPO / "requirements.txt")
    out = []
    for (package, _), _repo in RELEASES.items():
        if package not in pins:
            raise FlowError(f"pqsoc/cli/tapeout.py RELEASES names {package}, which requirements.txt does not pin")
        key = (package, pins[package])
        if key not in RELEASES:
            raise FlowError(f"requirements.txt pins {package}=={pins[package]}: pqsoc/cli/tapeout.py RELEASES "
                            "has no repository and commit for that release")
        url, commit = RELEASES[key]
        out.append(subfiles.ExternalRepo(url, commit, f"requirements.txt: {package}=={pins[package]}",
                                         USES[package]))
    setup = REPO / "tools" / "setup.sh"
    out.append(subfiles.ExternalRepo(_shell_var(setup, "CARAVEL_REPO"), _shell_var(setup, "CARAVEL_COMMIT"),
                                     "tools/setup.sh: CARAVEL_COMMIT",
                                     "Caravel's user project: the wrapper's ports, pin template, power grid"))
    out.append(subfiles.ExternalRepo("https://github.com/RTimothyEdwards/open_pdks", open_pdks_rev(),
                                     "LibreLane's pdk_hashes.yaml (pqsoc/flow/pdk.py open_pdks_rev)",
                                     "sky130A: the sky130_fd_sc_hd cells and OpenRAM's SRAM macros (sky130_sram_macros)"))
    return tuple(out)


def lvs_inputs() -> subfiles.LvsInputs:
    from ip.acc import block as acc_block
    from pqsoc.cli import blocks
    from pqsoc.flow.pdk import SCL
    from soc import silicon
    return subfiles.LvsInputs(
        top=WRAPPER, hard_macros=tuple(blocks.get(n).top for n in HARD_MACROS), std_cell_library=SCL,
        sram_macros=tuple(sorted({silicon.SRAM_MACRO, acc_block.SRAM_MACRO})),
        gl_path=next(dest for kind, _, dest in SUBMISSION_VIEWS if kind == "nl").format(top="{cell}"))


def project() -> flow.Project:
    from ip.acc.acvp import MODE_NAMES
    from ip.common import SYS_CLK_PERIOD_NS
    from ip.common.sram import MACROS
    from pqsoc.cli import blocks
    from pqsoc.flow.pdk import PDK, SCL, open_pdks_rev
    from pqsoc.flow.caravel import wrapper as caravel_wrapper
    from soc import silicon
    from soc.target import SILICON_ROM_SIZE, SILICON_SRAM_SIZE
    words, bits, _ = MACROS[silicon.SRAM_MACRO]
    core = blocks.get(CORE_BLOCK)
    macros = tuple(flow.Macro(name=n, cell=blocks.get(n).top, role="hard macro",
                              floorplan_key=n) for n in HARD_MACROS)
    macros += (flow.Macro(name=core.name, cell=core.top, role="core", floorplan_key="wrapper"),)
    return flow.Project(
        name="pqsoc",
        description=("post-quantum SoC: LiteX + Ibex, a PQC coprocessor (ACC) and a KMAC block, "
                     f"inside Caravel's {WRAPPER}"),
        top_module=WRAPPER, core_block=core.name, core_cell=core.top, wrapper_block=WRAPPER_BLOCK,
        shuttle={"program": "chipIgnite", "provider": "ChipFoundry", "harness": "Caravel",
                 "slot": "user project area", "area_um": _area_um(caravel_wrapper().die)},
        clock_period_ns=SYS_CLK_PERIOD_NS, clock_from="ip/common SYS_CLK_PERIOD_NS",
        pdk={"name": PDK.rstrip("AB"), "variant": PDK, "std_cell_library": SCL, "open_pdks_rev": open_pdks_rev()},
        sram_macro=silicon.SRAM_MACRO, sram_macro_bytes=words * bits // 8,
        memories=(flow.Memory("ACC IMEM", silicon.ACC_IMEM_SIZE, "ip/acc/block.py IMEM_SIZE"),
                  flow.Memory("ACC DMEM", silicon.ACC_DMEM_SIZE, "ip/acc/block.py DMEM_SIZE"),
                  flow.Memory("boot RAM", SILICON_ROM_SIZE, "soc/target.py SILICON_ROM_SIZE"),
                  flow.Memory("main SRAM", SILICON_SRAM_SIZE, "soc/target.py SILICON_SRAM_SIZE")),
        macros=macros,
        tests=tuple(flow.TestReport(*t) for t in TESTS),
        latency_reports=tuple(r for _, r, kind in TESTS if kind == "sim"),
        design_paths=DESIGN_PATHS,
        submission=flow.caravel_submission(WRAPPER, tuple(m.cell for m in macros if m.role == "hard macro"),
                                           WRAPPER_RTL_DIR),
        external_repos=external_repos(),
        lvs=lvs_inputs(),
        conformance=MODE_NAMES,      # NIST ACVP, every mode the ACC runs (`pqsoc acvp report`)
    )


def _area_um(die) -> list[float]:
    """Width and height of Caravel's user area (its DIE_AREA, read from CARAVEL_ROOT)."""
    return [round(die[2] - die[0], 3), round(die[3] - die[1], 3)]


def _write(args) -> int:
    out = flow.write(project(), REPO)
    print(f"[tapeout] wrote {out.relative_to(REPO)}")
    return 0


def _submission(args) -> int:
    for rel in flow.write_submission(project(), REPO):
        print(f"[tapeout] wrote {rel}")
    return 0


def _check(args) -> int:
    res = flow.check(project(), repo=REPO)
    print("[tapeout check] Caravel submission files:")
    for s in res["submission"]:
        where = f" (at {s['found_at']})" if s.get("found_at") else ""
        print(f"  {'exists ' if s['exists'] else 'MISSING'}  {s['path']}{where}"
              + ("" if s["exists"] else f"  <- {s['made_by']}"))
    if res["problems"]:
        n = len(res["problems"])
        print(f"pqsoc tapeout check: {n} problem{'s' * (n != 1)}:", file=sys.stderr)
        for p in res["problems"]:
            print(f"  {p}", file=sys.stderr)
        return 1
    print("[tapeout check] OK: every figure present and current, every check passed")
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("tapeout", help="tapeout.json: write it from reports/, or check it")
    s = p.add_subparsers(dest="tapeout_cmd", required=True)
    s.add_parser("write", help="fill tapeout.json from the reports that exist (last step of make report)"
                 ).set_defaults(func=_write)
    s.add_parser("submission", help="write the submission files made from the project's facts: "
                 "third_party/used_external_repos.csv, lvs/user_project_wrapper/lvs_config.json"
                 ).set_defaults(func=_submission)
    s.add_parser("check", help="fail on a missing or stale figure or a failed check; list the "
                 "Caravel submission files").set_defaults(func=_check)
