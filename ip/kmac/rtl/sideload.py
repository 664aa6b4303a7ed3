# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Stream signatures of the sponge engine and the coprocessor side-load port.

Signatures are written from the producer's side (valid/payload Out, ready In); flip them with
In(...) for the consumer. The side-load port is written from the coprocessor (master) side.
Protocol (see doc/spec.md): raise `hold`, wait for `granted`, send START, message words,
PAD_BLOCK/FINISH, then take digest words (taking one frees the output buffer for the eager
refill). Masked mode (side-load only): a START with `masked` = 1 runs the operation on two
Boolean shares (the state in MaskedKeccakCore): each message word comes as data ^ data1, each
digest word goes out as two shares, share 1 on data while digest.share1 asks for it (then
share 0 with the take), and the START reseeds the masking PRNG from msg.data
(the master drives fresh randomness there with the command; msg.valid stays low). `error` is sticky until the next accepted START or the release (the grant drops older
codes); `error_code` holds the ERR_* bits.
"""
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

OP_START, OP_PAD, OP_FINISH = 1, 2, 3


class CmdSignature(wiring.Signature):
    """op: 1 START (mode, strength, msg_len, masked latched), 2 PAD_BLOCK, 3 FINISH."""
    def __init__(self):
        super().__init__({"valid": Out(1), "ready": In(1), "op": Out(2), "mode": Out(2),
                          "strength": Out(3), "msg_len": Out(32), "masked": Out(1)})


class MsgSignature(wiring.Signature):
    """256-bit word, byte i = data[8i+7:8i]; mask selects a contiguous byte range [lo, hi).
    data1: the word's second share in masked mode (the word is data ^ data1), else ignored.

    The sponge engine packs the word straight from these wires: hold data and mask stable
    while valid & ~ready. On the side-load port the KMAC top takes the word into its intake
    register (ready = the register is empty, no path from the payload) and packs it from there."""
    def __init__(self):
        super().__init__({"valid": Out(1), "ready": In(1), "data": Out(256), "data1": Out(256),
                          "mask": Out(32)})


class DigestSignature(wiring.Signature):
    """Word k of the output stream = output bytes [32k, 32k+32); ready = take it (NEXT).
    share1 (the consumer's, like ready): data is the word's share 1 instead of its share 0 (0 in
    unmasked mode) and nothing is taken unless ready is 1 too; asking while not squeezing is an
    error, as for ready. One data bus for both shares: the consumer's write-back path is one
    bus anyway, so the shares pass it in two cycles whatever the port's width. In a masked
    operation data is 0 unless a share is asked for (share 0 with ready), so a consumer that
    puts a cycle between the two reads never has one share follow the other on the wires."""
    def __init__(self):
        super().__init__({"valid": Out(1), "ready": In(1), "data": Out(256), "share1": In(1)})


class SideloadSignature(wiring.Signature):
    def __init__(self):
        super().__init__({
            "hold": Out(1), "granted": In(1),
            "cmd": Out(CmdSignature()), "msg": Out(MsgSignature()),
            "digest": In(DigestSignature()),
            "error": In(1), "error_code": In(8),
        })
