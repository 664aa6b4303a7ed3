# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""ML-KEM's G and J on secrets in two Boolean shares, through the KMAC's masked mode (issue #38).

Decapsulation computes (K', r') = G(m' || h) with m' secret; in the masked decapsulation m'
comes out of the masked decoding in Boolean shares (ip/acc/kernels/mlkem/masked.py), so G
must take it that way and give K' and r' in shares too. The KMAC does it in hardware: a
masked START (kmac.start grs1[5], the KMAC's masks seeded from URND), m' as one two-share word
(kmac.msgm), h as a public word (kmac.msg: share 1 = 0), and each digest word read as share 1
(kmac.dig1) then, a cycle later (SEP), share 0 (kmac.dig). SHA3-512's 64 bytes are K' (word 0) and r' (word 1).

Register and port discipline (the RTL power model counts every register's and memory port's
Hamming distance, docs/side_channels.md): a domain-0 and a domain-1 value never follow each
other in one register or on the DMEM ports; the loads and stores of the two domains are
separated by a public word's (h, or the zero word).

J(z || c) (the implicit rejection's key) is the same with z secret and the ciphertext c public:
z as one two-share word, then c's words as public ones, K-bar out in shares.

`leak` seeds a first-order leak for the assessment's own check: "combined" XORs the shares in
a register and sends the secret as a public word (the KMAC then holds it itself).
"""
from ip.acc.kernels.mlkem.codec import absorb_loop
from ip.acc.kernels.mlkem.masked import SEP, wipe

SHA3_512_MASKED = 0 | 4 << 2 | 1 << 5        # kmac.start grs1: SHA3, strength 512, masked
SHAKE256_MASKED = 1 | 2 << 2 | 1 << 5        # SHAKE, strength 256, masked
LEAKS = (None, "combined")
CT_BYTES = {512: 768, 768: 1088, 1024: 1568}   # ML-KEM ciphertext sizes (FIPS 203, Table 3)
# SEP between a digest word's two reads (and between two words' reads): a cycle in which the
# side-load's digest wires and the write-back bus carry 0, so a share 1 and a share 0 never
# follow each other on them


class MaskedG:
    """(K'0 ^ K'1, r'0 ^ r'1) = SHA3-512(m' || h) for m' = m0 ^ m1 (32 bytes each), h public."""

    def __init__(self, leak: str | None = None, base: int = 0):
        if leak not in LEAKS:
            raise ValueError(f"unknown seeded leak {leak!r}")
        self.leak = leak
        self.M0, self.H, self.M1, self.ZERO = (base + 32 * i for i in range(4))
        self.K0, self.K1, self.R0, self.R1 = (base + 32 * i for i in range(4, 8))
        self.END = base + 32 * 8

    # ------------------------------------------------------------------ host side
    def image(self, m0: bytes, m1: bytes, h: bytes) -> dict:
        for name, v in (("m0", m0), ("m1", m1), ("h", h)):
            if len(v) != 32:
                raise ValueError(f"{name}: 32 bytes expected, got {len(v)}")
        return {self.M0: m0, self.H: h, self.M1: m1, self.ZERO: bytes(32)}

    def outputs(self, dmem: bytes) -> tuple[bytes, bytes, bytes, bytes]:
        """(K'0, K'1, r'0, r'1)."""
        return tuple(dmem[a:a + 32] for a in (self.K0, self.K1, self.R0, self.R1))

    def ct_policy(self) -> dict:
        """The constant-time check's view (ip/acc/tools/constant_time.py): m''s shares secret,
        h and the zero word public."""
        return {"secret": {"m' share 0": (self.M0, self.M0 + 32), "m' share 1": (self.M1, self.M1 + 32)},
                "public": {"h": (self.H, self.H + 32), "zero": (self.ZERO, self.ZERO + 32)},
                "rest": "secret", "allow": []}

    def share_policy(self) -> dict:
        """For the share-domain check (ip/acc/tools/share_check.py): m' in two shares; no gadget
        in the program (the masked Keccak is one in hardware)."""
        return {"shares": {"m' share 0": (self.M0, self.M0 + 32, 0), "m' share 1": (self.M1, self.M1 + 32, 1)}}

    # ------------------------------------------------------------------ program
    def program(self) -> str:
        from ip.acc.kernels.mlkem.masked import seed_urnd
        return "\n".join(seed_urnd() + self.body() + ["ecall"]) + "\n"

    def body(self, during=()) -> list[str]:
        """URND seeded -> the outputs at K0 / K1 / R0 / R1; the registers it used zeroed.
        w1 / w5 / w7: domain 0; w2 / w6 / w8: domain 1; w3: h, w4: the zero word. `during`:
        the caller's public work while the KMAC hashes (no w1..w8, x1, x3, KMAC or URND)."""
        L = [f"bn.lw w1, {self.M0}(x0)", f"bn.lw w3, {self.H}(x0)",      # h between the shares
             f"bn.lw w2, {self.M1}(x0)", f"bn.lw w4, {self.ZERO}(x0)",
             f"addi x1, x0, {SHA3_512_MASKED}", "addi x3, x0, -1",
             "kmac.acq", "kmac.start x1, x0"]
        if self.leak == "combined":
            L += ["bn.xor w1, w1, w2", "kmac.msg w1, x3"]
        else:
            L += ["kmac.msgm w1, w2, x3"]
        L += ["kmac.msg w3, x3", "kmac.finish", *during,
              "kmac.dig1 w6", SEP, "kmac.dig w5", SEP,        # K': share 1, then share 0 (taken)
              "kmac.dig1 w8", SEP, "kmac.dig w7",             # r'
              "kmac.rel"]
        # stores: each domain's word after the zero word's
        for reg, addr in (("w5", self.K0), ("w6", self.K1), ("w7", self.R0), ("w8", self.R1)):
            L += [f"bn.sw w4, {self.ZERO}(x0)", f"bn.sw {reg}, {addr}(x0)"]
        # wipe: one domain's registers, then the other's
        L += wipe("w1", "w5", "w7", "w2", "w6", "w8")
        return L


class MaskedJ:
    """K-bar0 ^ K-bar1 = SHAKE256(z || c, 32) for z = z0 ^ z1 (32 bytes each), c public (the
    ciphertext of ML-KEM-`param`, CT_BYTES[param] bytes: whole words)."""

    def __init__(self, param: int = 768, leak: str | None = None, base: int = 0):
        if param not in CT_BYTES:
            raise ValueError(f"ML-KEM-{param}: no such parameter set (512, 768, 1024)")
        if leak not in LEAKS:
            raise ValueError(f"unknown seeded leak {leak!r}")
        self.param, self.leak = param, leak
        self.ct_bytes = CT_BYTES[param]
        self.Z0, self.ZERO, self.Z1, self.K0, self.K1 = (base + 32 * i for i in range(5))
        self.C = base + 32 * 5
        self.END = self.C + self.ct_bytes

    # ------------------------------------------------------------------ host side
    def image(self, z0: bytes, z1: bytes, c: bytes) -> dict:
        for name, v, n in (("z0", z0, 32), ("z1", z1, 32), ("c", c, self.ct_bytes)):
            if len(v) != n:
                raise ValueError(f"{name}: {n} bytes expected for ML-KEM-{self.param}, got {len(v)}")
        return {self.Z0: z0, self.ZERO: bytes(32), self.Z1: z1, self.C: c}

    def outputs(self, dmem: bytes) -> tuple[bytes, bytes]:
        """(K-bar0, K-bar1)."""
        return dmem[self.K0:self.K0 + 32], dmem[self.K1:self.K1 + 32]

    def ct_policy(self) -> dict:
        """The constant-time check's view: z's shares secret, c and the zero word public."""
        return {"secret": {"z share 0": (self.Z0, self.Z0 + 32), "z share 1": (self.Z1, self.Z1 + 32)},
                "public": {"c": (self.C, self.END), "zero": (self.ZERO, self.ZERO + 32)},
                "rest": "secret", "allow": []}

    def share_policy(self) -> dict:
        """For the share-domain check (ip/acc/tools/share_check.py): z in two shares."""
        return {"shares": {"z share 0": (self.Z0, self.Z0 + 32, 0), "z share 1": (self.Z1, self.Z1 + 32, 1)}}

    # ------------------------------------------------------------------ program
    def program(self) -> str:
        from ip.acc.kernels.mlkem.masked import seed_urnd
        return "\n".join(seed_urnd() + self.body() + ["ecall"]) + "\n"

    def body(self) -> list[str]:
        """URND seeded -> K-bar's shares at K0 / K1; the registers that held shares zeroed.
        w1 / w5: domain 0; w2 / w6: domain 1; w4: the zero word; c through w14 / w15."""
        L = [f"bn.lw w1, {self.Z0}(x0)", f"bn.lw w4, {self.ZERO}(x0)",     # zero between shares
             f"bn.lw w2, {self.Z1}(x0)",
             f"addi x1, x0, {SHAKE256_MASKED}", "addi x3, x0, -1", f"addi x7, x0, {self.C}",
             "kmac.acq", "kmac.start x1, x0"]
        if self.leak == "combined":
            L += ["bn.xor w1, w1, w2", "kmac.msg w1, x3"]
        else:
            L += ["kmac.msgm w1, w2, x3"]
        L += absorb_loop(self.ct_bytes // 32)
        L += ["kmac.finish", "kmac.dig1 w6", SEP, "kmac.dig w5", "kmac.rel"]
        for reg, addr in (("w5", self.K0), ("w6", self.K1)):
            L += [f"bn.sw w4, {self.ZERO}(x0)", f"bn.sw {reg}, {addr}(x0)"]
        L += wipe("w1", "w5", "w2", "w6")
        return L


# (k, eta1, eta2) of each parameter set (FIPS 203, Table 2)
PRF_SETS = {512: (2, 3, 2), 768: (3, 2, 2), 1024: (4, 2, 2)}


class MaskedPRF:
    """The re-encryption's PRF outputs, PRF_eta(r', N) = SHAKE256(r' || N, 64 eta bytes), for
    N = 0 .. 2k (FIPS 203 K-PKE.Encrypt: y with eta1 for N < k, e1 with eta2 for k <= N < 2k,
    e2 with eta2 for N = 2k), r' = r0 ^ r1 in two shares (from G), N a public byte; each
    output in two Boolean shares, share 0's and share 1's concatenated in N's order at O0 /
    O1 (`spans`: N -> (offset, bytes) in them)."""

    def __init__(self, param: int = 768, leak: str | None = None, base: int = 0):
        if param not in PRF_SETS:
            raise ValueError(f"ML-KEM-{param}: no such parameter set (512, 768, 1024)")
        if leak not in LEAKS:
            raise ValueError(f"unknown seeded leak {leak!r}")
        self.param, self.leak = param, leak
        k, eta1, eta2 = PRF_SETS[param]
        self.etas = [eta1] * k + [eta2] * (k + 1)
        self.spans, off = [], 0
        for eta in self.etas:
            self.spans.append((off, 64 * eta))
            off += 64 * eta
        self.out_bytes = off
        # N's byte values 0 .. 2k as one public word: kmac.msg takes byte N by its mask
        self.R0, self.ZERO, self.R1, self.NW = (base + 32 * i for i in range(4))
        self.O0 = base + 128
        self.O1 = self.O0 + self.out_bytes
        self.END = self.O1 + self.out_bytes

    # ------------------------------------------------------------------ host side
    def image(self, r0: bytes, r1: bytes) -> dict:
        for name, v in (("r0", r0), ("r1", r1)):
            if len(v) != 32:
                raise ValueError(f"{name}: 32 bytes expected, got {len(v)}")
        return {self.R0: r0, self.ZERO: bytes(32), self.R1: r1, self.NW: bytes(range(32))}

    def outputs(self, dmem: bytes) -> list[tuple[bytes, bytes]]:
        """[(share 0, share 1)] of PRF(r', N) for N = 0 .. 2k."""
        return [(dmem[self.O0 + o:self.O0 + o + n], dmem[self.O1 + o:self.O1 + o + n]) for o, n in self.spans]

    def ct_policy(self) -> dict:
        """The constant-time check's view: r''s shares secret, N's bytes and the zero word public."""
        return {"secret": {"r' share 0": (self.R0, self.R0 + 32), "r' share 1": (self.R1, self.R1 + 32)},
                "public": {"N": (self.NW, self.NW + 32), "zero": (self.ZERO, self.ZERO + 32)},
                "rest": "secret", "allow": []}

    def share_policy(self) -> dict:
        """For the share-domain check (ip/acc/tools/share_check.py): r' in two shares."""
        return {"shares": {"r' share 0": (self.R0, self.R0 + 32, 0), "r' share 1": (self.R1, self.R1 + 32, 1)}}

    # ------------------------------------------------------------------ program
    def program(self) -> str:
        from ip.acc.kernels.mlkem.masked import seed_urnd
        return "\n".join(seed_urnd() + self.body() + ["ecall"]) + "\n"

    def body(self) -> list[str]:
        """URND seeded -> the outputs at O0 / O1; the registers that held shares zeroed.
        w1 / w5: domain 0; w2 / w6: domain 1; w3: the N bytes; w4: the zero word; x10 / x11:
        where the next word of share 0 / 1 goes."""
        L = [f"bn.lw w1, {self.R0}(x0)", f"bn.lw w4, {self.ZERO}(x0)",     # zero between shares
             f"bn.lw w2, {self.R1}(x0)", f"bn.lw w3, {self.NW}(x0)",
             f"addi x1, x0, {SHAKE256_MASKED}", "addi x3, x0, -1",
             f"addi x10, x0, {self.O0}", f"addi x11, x0, {self.O1}", "kmac.acq"]
        if self.leak == "combined":
            L += ["bn.xor w1, w1, w2"]
        for n, (_, nbytes) in enumerate(self.spans):
            L += ["kmac.start x1, x0",
                  "kmac.msg w1, x3" if self.leak == "combined" else "kmac.msgm w1, w2, x3",
                  f"addi x4, x0, {1 << n}", "kmac.msg w3, x4", "kmac.finish"]
            for _ in range(nbytes // 32):
                L += ["kmac.dig1 w6", SEP, "kmac.dig w5",
                      f"bn.sw w4, {self.ZERO}(x0)", "bn.sw w5, 0(x10)",
                      f"bn.sw w4, {self.ZERO}(x0)", "bn.sw w6, 0(x11)",
                      "addi x10, x10, 32", "addi x11, x11, 32"]
        L += ["kmac.rel"]
        L += wipe("w1", "w5", "w2", "w6")
        return L


def prf_cbd(n: int, eta: int, combined: bool = False) -> list[str]:
    """One noise polynomial: PRF_eta(r', N = n) through the KMAC's masked mode, its digest
    taken by the stream unit's masked CBD mode into DMEM[x10] (share 0's 256 coefficients,
    then share 1's), started, not waited for. Expects r''s shares in w1 / w2 (or their XOR
    in w1: `combined`, the seeded leak), N's byte values in w3, x1 = SHAKE256_MASKED,
    x3 = -1, x5 = 256; uses x4."""
    return ["kmac.start x1, x0", "kmac.msg w1, x3" if combined else "kmac.msgm w1, w2, x3",
            f"addi x4, x0, {1 << n}", "kmac.msg w3, x4", "kmac.finish", f"smp.run x10, x5, cbd{eta}m"]


class MaskedCBD(MaskedPRF):
    """The re-encryption's noise polynomials, SamplePolyCBD_eta(PRF_eta(r', N)) for N = 0 ..
    2k, r' = r0 ^ r1 in two Boolean shares: each PRF through the KMAC's masked mode as in
    MaskedPRF, its two digest shares taken by the stream unit's masked mode (smp.run cbd2m /
    cbd3m: ip/acc/iss/masked_cbd.py's gadget in hardware), which writes the polynomial in two
    arithmetic shares mod q. Polynomial N at P + 1024 N: share 0's 256 coefficients (16-bit
    lanes, 512 bytes), then share 1's.

    Seeded leaks: "combined" as MaskedPRF's; "joined" loads each polynomial's first word of
    share 0 and then of share 1 into one register (their Hamming distance depends on the
    coefficients: the assessment must see the sampler's outputs)."""

    POLY = 1024                       # bytes a polynomial takes: two shares of 512
    LEAKS = (None, "combined", "joined")

    def __init__(self, param: int = 768, leak: str | None = None, base: int = 0):
        if leak not in self.LEAKS:
            raise ValueError(f"unknown seeded leak {leak!r}")
        super().__init__(param, None if leak == "joined" else leak, base)
        self.leak = leak
        self.P = base + 128
        self.END = self.P + self.POLY * len(self.etas)

    def outputs(self, dmem: bytes) -> list[tuple[list[int], list[int]]]:
        """[(share 0, share 1)] of each polynomial's coefficients, N = 0 .. 2k."""
        def coeffs(a):
            return [int.from_bytes(dmem[a + 2 * i:a + 2 * i + 2], "little") for i in range(256)]
        return [(coeffs(self.P + self.POLY * n), coeffs(self.P + self.POLY * n + 512))
                for n in range(len(self.etas))]

    def body(self) -> list[str]:
        """URND seeded -> the polynomials at P; w1 / w2 (r''s shares) zeroed. The KMAC's next
        masked START draws URND, which the stream unit's masked mode steps every cycle: the
        program waits for the unit first (smp.wait)."""
        L = [f"bn.lw w1, {self.R0}(x0)", f"bn.lw w4, {self.ZERO}(x0)",     # zero between shares
             f"bn.lw w2, {self.R1}(x0)", f"bn.lw w3, {self.NW}(x0)",
             f"addi x1, x0, {SHAKE256_MASKED}", "addi x3, x0, -1",
             f"addi x10, x0, {self.P}", "addi x5, x0, 256", "kmac.acq"]
        if self.leak == "combined":
            L += ["bn.xor w1, w1, w2"]
        for n, eta in enumerate(self.etas):
            L += prf_cbd(n, eta, self.leak == "combined") + ["smp.wait"]
            if self.leak == "joined":
                L += ["bn.lw w5, 0(x10)", "bn.lw w5, 512(x10)", *wipe("w5")]
            L += [f"addi x10, x10, {self.POLY}"]
        L += ["kmac.rel"]
        L += wipe("w1", "w2")
        return L
