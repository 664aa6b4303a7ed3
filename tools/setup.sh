#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
# One-command setup on Debian 12: pinned apt packages, a pinned Python venv (.venv), the PDK check.
# In the Nix shell (flake.nix) the same command makes the venv and checks the PDK, without apt.
# Idempotent: every step first checks whether its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian 12 (bookworm) versions, pinned. The flow was checked with exactly these.
APT_PACKAGES=(
  "verilator=5.006-3"
  "iverilog=11.0-1.1+b1"
  "opensta=0~20191111gitc018cb2+dfsg-1"
  "gcc-riscv64-unknown-elf=12.2.0-14+deb12u1+11+b2"
  "picolibc-riscv64-unknown-elf=1.8-1"
  "nix-bin=2.8.0-1.1+b1"
  "clang-14=1:14.0.6-12"        # compiles the gate-level models (pqsoc.flow.gls.GL_CXX)
  "magic=8.3.105+ds.1-1.1"      # pqsoc signoff, pqsoc layout: DEF/GDS, DRC, extraction
  "netgen-lvs=1.5.133-1.2"      # pqsoc signoff: LVS
  "klayout=0.28.5-2"            # pqsoc signoff: the PDK's KLayout DRC runset
  "ccache=4.8+really4.7.5-1"    # Verilator's C++ builds (OBJCACHE, Makefile): unchanged models recompile from the cache
)

step() { echo "[setup] $*"; }

# Inside the Nix shell of flake.nix (IN_NIX_SHELL is set by `nix develop`) or on a host without
# Debian's package tools, the tools come from Nix or the host: nothing is installed with apt, the
# ones the flow starts are looked up and the missing ones named (only the commands that need them
# fail, by name).
TOOLS=(verilator iverilog sta magic netgen klayout)
if [ -n "${IN_NIX_SHELL:-}" ] || ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  why="no apt on this host"; [ -n "${IN_NIX_SHELL:-}" ] && why="Nix shell"
  absent=()
  for t in "${TOOLS[@]}"; do command -v "$t" >/dev/null || absent+=("$t"); done
  if [ ${#absent[@]} -gt 0 ]; then
    step "apt: skipped ($why); not on PATH: ${absent[*]}"
  else
    step "apt: skipped ($why); ${TOOLS[*]} on PATH"
  fi
else
  missing=()
  for spec in "${APT_PACKAGES[@]}"; do
    name=${spec%%=*}; want=${spec#*=}
    have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
    if [ "$have" != "install ok installed $want" ]; then missing+=("$spec"); fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    step "apt: installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    step "apt: all ${#APT_PACKAGES[@]} pinned packages present"
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  step "venv: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-nodeps.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  step "venv: installing pinned Python packages"
  .venv/bin/python -m pip install -q --upgrade "pip==25.3"
  .venv/bin/python -m pip install -q -r requirements.txt
  # packages whose declared dependencies conflict with our pins but are not imported (see file)
  .venv/bin/python -m pip install -q --no-deps -r requirements-nodeps.txt
  .venv/bin/python -m pip install -q --no-deps --no-build-isolation -e .
  echo "$want" > "$stamp"
else
  step "venv: up to date"
fi

# Caravel's fixed user-project files (soc/caravel.py): $CARAVEL_ROOT when it holds them, else
# caravel_user_project at the pinned commit into .caravel (the Makefile's default CARAVEL_ROOT),
# where the network allows; without them only the Caravel tests and commands fail, by name.
CARAVEL_REPO=https://github.com/chipfoundry/caravel_user_project
CARAVEL_COMMIT=6ed6d810a840261a21a99d85a8f94949f625a9fa
caravel=${CARAVEL_ROOT:-.caravel}
if [ -f "$caravel/verilog/rtl/user_project_wrapper.v" ]; then
  step "caravel: $caravel"
else
  step "caravel: fetching $CARAVEL_REPO at $CARAVEL_COMMIT into .caravel"
  if ! { rm -rf .caravel && git init -q .caravel && git -C .caravel fetch -q --depth 1 "$CARAVEL_REPO" "$CARAVEL_COMMIT" \
         && git -C .caravel checkout -q FETCH_HEAD; }; then
    step "caravel: could not fetch it; set CARAVEL_ROOT to a caravel_user_project checkout at $CARAVEL_COMMIT"
  fi
fi

# PDK: use $PDK_ROOT when it holds sky130A, else install a pinned one with ciel.
.venv/bin/pqsoc pdk check --install
step "done. Activate with: source .venv/bin/activate"
