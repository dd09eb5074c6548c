"""numpy's PCG64 uniform drawn inside a numba kernel without a call: a bench-only measurement aid.

``rng.random()`` in numba calls numpy's ``next_double`` through the bit generator's function pointer, one
opaque call per draw. :func:`uniform` performs the same step in the kernel instead and returns the same
double, advancing the same state (docs/decisions/performance.md, "The generator's step inlined: tried,
not kept": privrl does not use it, because it reads numpy's private state layout and gained within ±10 %
per seed). bench/lockstep_pucb.py uses it to measure whether lock-step seeds gain once the draws are
plain arithmetic that the core can overlap across seeds. numpy's PCG64 (O'Neill's PCG-XSL-RR 128/64,
numpy/random/src/pcg64/pcg64.h):

* state: ``s <- s * M + inc (mod 2^128)``, M = 2549297995355413924 * 2^64 + 4865540595714422341;
* output: ``rotr64(hi(s) ^ lo(s), s >> 122)`` of the new state;
* double: ``(out >> 11) * 2^-53`` (numpy's ``next_double``).

The bit generator's ``state`` pointer is numpy's ``pcg64_state``, whose first member points at
``{uint128 state; uint128 inc}``. Only a ``np.random.PCG64`` generator may be passed (the bench builds its
own with privrl.rl.seeding, which uses PCG64); the bench checks every seed's regret against privrl's.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: PCG64's 128-bit multiplier (numpy's PCG_DEFAULT_MULTIPLIER_128)
MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
_BITGEN = types.NumPyRandomBitGeneratorType("bit_generator")


@intrinsic
def uniform(typingctx, rng):
    """``rng.random()`` of a PCG64 generator (a float64 in [0, 1)), the step inlined (module docstring)."""
    if not isinstance(rng, types.NumPyRandomGeneratorType):
        return None

    def codegen(context, builder, signature, args):
        gen = cgutils.create_struct_proxy(rng)(context, builder, value=args[0])
        bitgen = cgutils.create_struct_proxy(_BITGEN)(context, builder, value=gen.bit_generator)
        i64, i128, f64 = ir.IntType(64), ir.IntType(128), ir.DoubleType()
        pcg = builder.load(builder.inttoptr(bitgen.state, i128.as_pointer().as_pointer()))
        inc_ptr = builder.gep(pcg, [ir.Constant(ir.IntType(32), 1)])
        s = builder.add(builder.mul(builder.load(pcg, align=8), ir.Constant(i128, MULTIPLIER)),
                        builder.load(inc_ptr, align=8))
        builder.store(s, pcg, align=8)
        word = builder.xor(builder.trunc(builder.lshr(s, ir.Constant(i128, 64)), i64), builder.trunc(s, i64))
        rot = builder.trunc(builder.lshr(s, ir.Constant(i128, 122)), i64)
        fshr = builder.module.declare_intrinsic("llvm.fshr", [i64], ir.FunctionType(i64, [i64, i64, i64]))
        word = builder.call(fshr, [word, word, rot])
        return builder.fmul(builder.uitofp(builder.lshr(word, ir.Constant(i64, 11)), f64),
                            ir.Constant(f64, 1.0 / 9007199254740992.0))

    return types.float64(rng), codegen
