import sys, random, time
from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
from ip.acc.iss import Iss
from ip.acc.tools.asm import assemble
from ip.acc.kernels.mldsa.keygen import keygen
REF = {44: ML_DSA_44, 65: ML_DSA_65, 87: ML_DSA_87}
for p in [int(a) for a in sys.argv[1:]]:
    kg = keygen(p)
    w = assemble(kg.program(), "kg.s")
    xi = random.Random(p).randbytes(32)
    sim = Iss(dmem_size=16384, imem_size=16384)
    sim.load_program(w)
    for a, b in kg.image(xi).items(): sim.dmem.write_bytes(a, b)
    t = time.time()
    h = sim.run(max_cycles=200_000)
    pk, sk = kg.outputs(sim.dmem.read_bytes(0, 16384))
    rpk, rsk = REF[p]._keygen_internal(xi)
    print(p, h, "imem", 4*len(w), "END", kg.END, "keep", kg.n_keep, "pk", pk == rpk, "sk", sk == rsk, f"{time.time()-t:.1f}s")
    if sk != rsk:
        for name, a, b in [("rho",0,32),("K",32,64),("tr",64,128),("s1",128,kg.SK_S2-kg.SK),("s2",kg.SK_S2-kg.SK,kg.SK_T0-kg.SK),("t0",kg.SK_T0-kg.SK,kg.sk_len)]:
            print("  ", name, sk[a:b] == rsk[a:b])
        print("  t1", pk[32:] == rpk[32:])
