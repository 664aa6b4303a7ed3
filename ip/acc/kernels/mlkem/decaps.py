"""ML-KEM-768 decapsulation on the ACC: complete programs for K-PKE.Decrypt (FIPS 203
Alg. 15) and ML-KEM.Decaps_internal (Alg. 18), their DMEM layout and image.

    src = decaps_program()                 # assembly text
    dm = image(dk, c)                      # {addr: bytes} (inputs + constant tables)
    ... run on the ISS ...; K = dmem[K_OUT:K_OUT + 32]

Design (the pieces are in codec.py, ntt.py, basemul.py; see there):
* Decrypt: ByteDecode12 of s_hat, ByteDecode10 / ByteDecode4 of u / v (kept as y << 6 /
  y << 12 for the re-encryption check), NTT of u with Decompress10 on the way in,
  s_hat o u_hat, INTT, m' = ByteEncode1(Compress1(v - w)).
* NTT / INTT: the mlkem.ntt schedules with a base register (loopi over polynomials). The
  NTTs of u and y store the base-case transposed layout (basemul.transposed_store), so the
  base-case multiply-accumulate (basemul.basemul_loop) transposes only a; products carry
  2^-16, removed by the INTT scale word (basemul.iscale_mont_word()).
* Hashes on the KMAC side-load (port held for the whole program). J(z || c) is absorbed
  during the u decode (one message word per half iteration), its digest read before G.
  A_hat^T entries (uni12) and PRF + cbd2 run on the stream unit in the background of core
  work (`_pair`: start job, core chunk, smp.wait); see decaps_phases() for the schedule.
* Re-encryption check: codec.compress_compare ORs Compress_d(u', v') xor c into ACC;
  select: x9 = number of non-zero lanes; a bn.ltv mask and bn.sel pick K' or K_bar
  without a branch.
* Buffers of the decryption are reused by the re-encryption (layout below).
"""
from ip.acc.kernels.asm_util import li as _li, loop as _loop, mem as _m
from ip.acc.kernels import sample
from ip.acc.kernels.mlkem import basemul, codec, ntt
from ip.acc.kernels.mlkem.codec import u16 as _u16
from ip.acc.kernels.sample import SHA3_512, SHAKE128, SHAKE256
from ip.acc.tools import sched

Q = codec.Q
K = 3
QINV16 = codec.QINV16

# ------------------------------------------------------------------ DMEM layout (bytes)
DK = 0                       # 2400 B: s_hat enc | t_hat enc | rho | h | z
DK_T = DK + 1152
DK_RHO = DK + 2304
DK_H = DK + 2336
DK_Z = DK + 2368
CT = 2400                    # 1088 B: u enc (960) | v enc (128); z || c contiguous (J input)
CT_V = CT + 960
TWID = 3488                  # 8 words NTT twiddles
ITWID = TWID + 256           # 8 words INTT twiddles
ISCALE = ITWID + 256         # 1 word
BMC = ISCALE + 32            # 9 words base-case multiply constants
KC = BMC + 9 * 32            # codec's constant words (codec.CONST_NAMES)
KA = {n: KC + 32 * i for i, n in enumerate(codec.CONST_NAMES)}
WORK = KC + 32 * len(codec.CONST_NAMES)
# After the first step (ByteDecode12 of s_hat) the s_hat encoding DK[0:1152] is dead: the
# small outputs and the u' buffer live there (the program overwrites that part of dk).
UP = DK                      # u' = INTT input, one polynomial at a time (512 B)
MOUT = DK + 512              # m' (32 B)
KP = MOUT + 32               # K'
RSEED = KP + 32              # r
KBAR = RSEED + 32            # J(z || c)
K_OUT = KBAR + 32            # shared secret (decaps output)
# decrypt buffers
S_HAT = WORK                 # 3 polys (decoded, plain)
U = S_HAT + 1536             # 3 polys: Decompress10(u) -> NTT (transposed layout)
V = U + 1536                 # Decompress4(v)
W = V + 512                  # s_hat . u_hat -> INTT
UC = W + 512                 # 3 polys: decoded u, y << 6 (kept for the compare)
VC = UC + 1536               # v: y << 12 (kept)
MSK = VC + 512               # compress1 masks of m' (16 words, kept: mu = MSK & 1665)
T_HAT = MSK + 512            # 3 polys
# re-encryption buffers: S_HAT, U, V, W are dead after decrypt and reused
YV = S_HAT                   # y (3 polys) -> NTT in place (transposed layout)
E1 = U                       # e1 (3 polys)
E2 = V                       # e2
VP = W                       # v' accumulator
AM = T_HAT + 1536            # 2 row buffers of A_hat^T (3 polys each); row 2 reuses row 0's
END = AM + 2 * 1536          # peak DMEM use (bytes)


def const_image() -> dict:
    img = {}
    img[TWID] = b"".join(_u16(w) for w in ntt.twiddle_words())
    img[ITWID] = b"".join(_u16(w) for w in ntt.itwiddle_words())
    img[ISCALE] = _u16(basemul.iscale_mont_word())
    img[BMC] = b"".join(_u16(w) for w in basemul.const_words())
    cw = codec.const_words()
    img[KC] = b"".join(cw[n] for n in codec.CONST_NAMES)
    return img


def image(dk: bytes = None, c: bytes = None, dk_pke: bytes = None) -> dict:
    """DMEM image {addr: bytes}: inputs (dk or just dk_pke = s_hat encoding) and constants."""
    img = const_image()
    if dk is not None:
        assert len(dk) == 2400
        img[DK] = dk
    if dk_pke is not None:
        assert len(dk_pke) == 1152
        img[DK] = dk_pke
    if c is not None:
        assert len(c) == 1088
        img[CT] = c
    return img


# ------------------------------------------------------------------ code pieces
def _vmode(v):
    return [f"addi x31, x0, {v}", "csrrw x0, VMODE, x31"]


def ntt_polys(addr, n, transpose=False, dsrc=None):
    """n NTTs in place at addr (or from Decompress10 of the words y << 6 at dsrc into addr);
    transpose: store the base-case layout (basemul.transposed_store)."""
    load = None if dsrc is None else codec.decompress10_load(9, KA)
    store = basemul.transposed_store if transpose else None
    body = ntt.ntt_body("x8", TWID, load, store, _m) + ["addi x8, x8, 512"]
    L = _li(8, addr)
    if dsrc is not None:
        L += _li(9, dsrc)
        body.append("addi x9, x9, 512")
    return L + _loop(n, body)


def intt_poly(addr):
    return _li(8, addr) + ntt.intt_body("x8", ITWID, ISCALE, _m)


def decrypt_core(j_hash=False):
    """j_hash (decaps): absorb J(z || c) during the u decode (port held; digest read later
    by _g_hash)."""
    L = ["lui x30, 4"]
    L += _vmode(1)
    L += codec.decode_wide(12, DK, S_HAT, 48, KA)
    if j_hash:
        L += [f"addi x1, x0, {SHAKE256}"] + _li(2, 1120) + ["kmac.start x1, x2"] + \
            _li(7, DK_Z) + ["addi x3, x0, -1"]
    L += codec.decode_wide(10, CT, UC, 48, KA, kmac_words=35 if j_hash else 0)
    L += _vmode(0)
    L += codec.decode4(CT_V, VC, V, KA)
    L += ntt_polys(U, 3, transpose=True, dsrc=UC)
    L += basemul.basemul_loop([(S_HAT + 512 * j, U + 512 * j) for j in range(3)], W, BMC)
    L += intt_poly(W)
    L += codec.message_bits(V, W, MSK, MOUT, KA)
    return L


def decrypt_program() -> str:
    """K-PKE.Decrypt: dk_PKE at DK, c at CT -> m at MOUT."""
    return "\n".join(decrypt_core() + ["ecall"]) + "\n"


# ------------------------------------------------------------------ decaps
def _start_prf(n, dst):
    """SHAKE256(r || n) -> cbd2 -> dst (256 coefficients), in the background (VMODE 0)."""
    return sample.start(SHAKE256, RSEED, n, 1, dst, "cbd2")


def _start_a(i, j, dst):
    """SampleNTT(SHAKE128(rho || i || j)) -> dst (= A_hat^T[i][j] = A_hat[j][i])."""
    return sample.start(SHAKE128, DK_RHO, i | j << 8, 2, dst, "uni12")


def _g_hash():
    """Read J's digest (K_bar), then (K', r) = G(m' || h), SHA3-512 on the side-load."""
    return ["kmac.dig w9", f"bn.sw w9, {_m(KBAR)}",
            f"addi x1, x0, {SHA3_512}", "addi x2, x0, 64", "kmac.start x1, x2",
            f"bn.lw w1, {_m(MOUT)}", f"bn.lw w2, {_m(DK_H)}", "addi x3, x0, -1",
            "kmac.msg w1, x3", "kmac.msg w2, x3", "kmac.dig w3", "kmac.dig w4",
            f"bn.sw w3, {_m(KP)}", f"bn.sw w4, {_m(RSEED)}"]


def _check(kind, src, i=None):
    """Re-encryption check of u'[i] (kind "u") or v' (kind "v") at src (codec.compress_compare
    against the decoded ciphertext kept in UC / VC)."""
    if kind == "u":
        return codec.compress_compare("u", src, E1 + 512 * i, UC + 512 * i, KA)
    return codec.compress_compare("v", src, E2, VC, KA, msk=MSK)


def _select():
    """K = K' if c' = c (ACC clean: x9 = 0) else K_bar (w2), constant time."""
    return ["bn.bcast w3, x9", f"bn.lw w4, {_m(KA['one'])}", f"bn.lw w6, {_m(KP)}",
            f"bn.lw w2, {_m(KBAR)}",
            "bn.ltv w5, w3, w4", "bn.sel w5, w6, w2", f"bn.sw w5, {_m(K_OUT)}"]


def _abuf(i, j):
    """Row buffer of A_hat^T[i][j]: rows 0 and 2 share a buffer (row 0 is dead when row 2
    is sampled, during basemul of row 1)."""
    return AM + 1536 * (i % 2) + 512 * j


def _pair(job, chunk):
    """Start a sampler job, run core work, wait for the job."""
    return job + chunk + ["smp.wait"]


def decaps_phases():
    """[(name, lines)] of ML-KEM.Decaps_internal; run in order, then ecall."""
    ph = [("init", ["bn.xor w15, w15, w15", "bn.wsrw ACC, w15", "kmac.acq"])]
    ph.append(("decrypt (+ J absorb)", decrypt_core(j_hash=True)))
    ph.append(("G", _g_hash()))
    # t_hat decode in 6 chunks of 8 words, PRF y0..y2, e1_0..e1_2 in their shadow
    prf = [(0, YV), (1, YV + 512), (2, YV + 1024), (3, E1), (4, E1 + 512), (5, E1 + 1024)]
    L = []
    for c, (n, dst) in enumerate(prf):
        L += _vmode(0) + _start_prf(n, dst) + _vmode(1) + \
            codec.decode_wide(12, DK_T + 192 * c, T_HAT + 256 * c, 8, KA) + ["smp.wait"]
    L += _vmode(0)
    ph.append(("decode t_hat + PRF y, e1", L))
    L = []
    for j in range(3):
        L += _pair(_start_a(0, j, _abuf(0, j)), ntt_polys(YV + 512 * j, 1, transpose=True))
    ph.append(("NTT(y) + A row 0", L))

    def bm_u(i):
        return basemul.basemul_loop([(_abuf(i, j), YV + 512 * j) for j in range(3)], UP, BMC)

    def intt_fin_u(i):
        return intt_poly(UP) + _check("u", UP, i)
    bm_v = basemul.basemul_loop([(T_HAT + 512 * j, YV + 512 * j) for j in range(3)], VP, BMC)
    L = _pair(_start_a(1, 0, _abuf(1, 0)), bm_u(0))
    L += _pair(_start_a(1, 1, _abuf(1, 1)), intt_fin_u(0))
    L += _pair(_start_a(1, 2, _abuf(1, 2)), bm_v)
    L += _pair(_start_a(2, 0, _abuf(2, 0)), bm_u(1))
    L += _pair(_start_a(2, 1, _abuf(2, 1)), intt_fin_u(1))
    L += _pair(_start_a(2, 2, _abuf(2, 2)), intt_poly(VP))
    L += _pair(_start_prf(6, E2), bm_u(2))
    ph.append(("A rows 1-2 + e2 | basemul, INTT, compress, compare u0, u1, v", L))
    L = intt_fin_u(2) + _check("v", VP)
    ph.append(("INTT u2, compress + compare u2, v", L))
    ph.append(("select", _select() + ["kmac.rel"]))
    return ph


def decaps_program() -> str:
    """ML-KEM.Decaps_internal: dk at DK, c at CT -> K at K_OUT."""
    lines = ["lui x30, 4"]
    for _, L in decaps_phases():
        lines += L
    # the phases' straight-line stretches list-scheduled across their seams too
    return "\n".join(sched.schedule(lines) + ["ecall"]) + "\n"


def ct_policy() -> dict:
    """What the constant-time check (ip/acc/tools/constant_time.py) takes as secret at entry:
    dk's s_hat encoding and z; public: the rest of dk (t_hat, rho: the ek part; H(ek)), the
    ciphertext and the constant tables; any other DMEM byte counts as secret (the program
    must not read a buffer it has not written). No exceptions."""
    public = {"dk.ek (t_hat, rho)": (DK_T, DK_H), "dk.h": (DK_H, DK_Z), "c": (CT, CT + 1088)}
    for addr, blob in sorted(const_image().items()):
        public[f"constants@{addr}"] = (addr, addr + len(blob))
    return {"secret": {"dk.s_hat": (DK, DK_T), "dk.z": (DK_Z, DK_Z + 32)},
            "public": public, "rest": "secret", "allow": []}
