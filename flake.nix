# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
{
  # The hardening shell: LibreLane (OpenLane 2's continuation, the flow ChipFoundry runs for the
  # Caravel shuttles) with the tools it drives (OpenROAD, Yosys with slang, Magic, Netgen,
  # KLayout, Verilator, OpenSTA), at the version requirements.txt pins for `pqsoc pnr check`.
  # On Debian, `make setup` installs the local flow (synthesis, STA, simulation) without Nix;
  # place-and-route (`make harden`) runs only here: OpenROAD is in no Debian or PyPI package.
  description = "pqsoc: post-quantum SoC for SKY130 (KMAC, PQC coprocessor, LiteX SoC)";

  # LibreLane's binary cache (its installation guide names it): without it Nix builds OpenROAD,
  # OR-Tools and KLayout from source, hours on a laptop. Nix asks before it uses a flake's
  # nixConfig unless the user trusts it (`accept-flake-config = true`).
  nixConfig = {
    extra-substituters = [ "https://nix-cache.fossi-foundation.org" ];
    extra-trusted-public-keys = [
      "nix-cache.fossi-foundation.org:3+K59iFwXqKsL7BNu6Guy0v+uTlwsxYQxjspXzqLYQs="
    ];
  };

  inputs = {
    # the tag of the release requirements.txt pins (tests/test_harden_ready.py checks they agree)
    librelane.url = "github:librelane/librelane/3.0.17";
    # LibreLane takes its nixpkgs from nix-eda: the same package set, so the cache above serves it
    nixpkgs.follows = "librelane/nix-eda/nixpkgs";
  };

  outputs = { self, nixpkgs, librelane, ... }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "aarch64-darwin" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f system librelane.legacyPackages.${system});
    in {
      devShells = forAllSystems (system: pkgs:
        let
          ll = pkgs.python3.pkgs.librelane;
        in {
          default = pkgs.mkShell {
            packages = [
              # librelane's interpreter; pip / venv for `make setup`'s .venv (pqsoc's own packages)
              (pkgs.python3.withPackages (ps: [ ps.librelane ps.pip ps.virtualenv ]))
              pkgs.gnumake
              pkgs.git
            ] ++ ll.includedTools;   # openroad, yosys, magic, netgen, klayout, verilator, opensta...
            shellHook = ''
              export PDK_ROOT=''${PDK_ROOT:-$HOME/.ciel}
              echo "pqsoc hardening shell: $(librelane --version 2>/dev/null | head -n1); PDK_ROOT=$PDK_ROOT"
              echo "run 'make setup' once (the .venv; no apt here), then 'make harden' (README: Hardening)"
            '';
          };
        });
    };
}
