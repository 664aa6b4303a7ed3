# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
{
  # Nix dev shell: the tools of the local flow plus OpenLane 2 (with OpenROAD, Magic, Netgen,
  # KLayout) for hardening. On Debian, `make setup` installs the local flow without Nix.
  description = "pqsoc: post-quantum SoC for SKY130 (KMAC, PQC coprocessor, LiteX SoC)";

  inputs = {
    openlane2.url = "github:efabless/openlane2/2.3.10";
    nixpkgs.follows = "openlane2/nixpkgs";
  };

  outputs = { self, nixpkgs, openlane2, ... }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "aarch64-darwin" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f system nixpkgs.legacyPackages.${system});
    in {
      devShells = forAllSystems (system: pkgs: {
        default = pkgs.mkShell {
          packages = [
            openlane2.packages.${system}.openlane
            pkgs.verilator
            pkgs.iverilog
            pkgs.gnumake
            pkgs.git
            pkgs.pkgsCross.riscv32-embedded.buildPackages.gcc
            (pkgs.python3.withPackages (ps: [ ps.pip ps.virtualenv ]))
          ];
          shellHook = ''
            export PDK_ROOT=''${PDK_ROOT:-$HOME/.ciel}
            echo "pqsoc dev shell: OpenLane $(openlane --version 2>/dev/null | head -n1); PDK_ROOT=$PDK_ROOT"
            echo "run 'make setup' once for the Python venv, then 'make report' or 'make harden'"
          '';
        };
      });
    };
}
