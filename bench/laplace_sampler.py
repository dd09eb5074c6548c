"""What a cheaper Laplace draw buys: four samplers of Lap(b), timed side by side.

    python bench/laplace_sampler.py

Until 2026-11-25 the tree and local-Laplace privatizers drew one Lap(b) per counter per release as
``b * E * sign`` with ``E = rng.standard_exponential()`` (numpy's ziggurat) and the sign from
``rng.random() < 0.5``: two 64-bit PCG64 words, each through an indirect call into numpy's C
generator. They now draw (4). Measured here (ns per Laplace, one core):

1. ``numba``: the two-word sampler;
2. ``inline PCG64``: the same two words from PCG64 (XSL-RR 128/64) stepped in registers by an
   LLVM intrinsic on numpy's own generator state (read from and written back to numpy's
   ``pcg64_state``); the script asserts it gives the *same stream* (values and final state) as
   (1). Not adopted: it depends on numpy's private C struct layout (native ``__uint128_t``),
   for a gain measured at ~15% of a draw;
3. ``one word``: the sign taken from bit 0 of the ziggurat's own word (``standard_exponential``
   discards bits 0-2: ``ri >> 3``), so one word per Laplace. Exactly Laplace(b) too (the sign bit
   is independent of the bits the exponential uses), but a *different stream*: every committed
   number of a tree / local-Laplace agent would change. A proposal only.
4. ``one word, public API`` (adopted: privrl.mechanisms.laplace.laplace_unit,
   docs/decisions/mechanisms.md D13): the word's top 53 bits from ``rng.random()``, the sign from
   bit 0 and numpy's ziggurat on the other 52 (one call into numpy's generator per draw).
"""
from __future__ import annotations

import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.random._constants import fe_double, ke_double, we_double, ziggurat_exp_r

from privrl.mechanisms.laplace import laplace_noise
from privrl.rl import seeding

_MULT = (2549297995355413924 << 64) + 4865540595714422341  # PCG64's 128-bit LCG multiplier
_BITGEN = types.NumPyRandomBitGeneratorType("bit_generator")


def _pcg_words(ctx, builder, gen_type, gen_value):
    """Pointer to numpy's pcg64_random_t {state, inc} (native 128-bit: lo, hi, inc lo, inc hi)."""
    gen = cgutils.create_struct_proxy(gen_type)(ctx, builder, value=gen_value)
    bg = cgutils.create_struct_proxy(_BITGEN)(ctx, builder, value=gen.bit_generator)
    i64 = ir.IntType(64)
    return builder.load(builder.inttoptr(bg.state, i64.as_pointer().as_pointer()))


@intrinsic
def _pcg_load(tyctx, rng):
    sig = types.UniTuple(types.uint64, 4)(rng)

    def codegen(ctx, builder, sig, args):
        w = _pcg_words(ctx, builder, sig.args[0], args[0])
        v = [builder.load(builder.gep(w, [ir.Constant(ir.IntType(32), k)])) for k in range(4)]
        return ctx.make_tuple(builder, sig.return_type, [v[1], v[0], v[3], v[2]])
    return sig, codegen


@intrinsic
def _pcg_store(tyctx, rng, hi, lo):
    sig = types.void(rng, types.uint64, types.uint64)

    def codegen(ctx, builder, sig, args):
        w = _pcg_words(ctx, builder, sig.args[0], args[0])
        builder.store(args[2], builder.gep(w, [ir.Constant(ir.IntType(32), 0)]))
        builder.store(args[1], builder.gep(w, [ir.Constant(ir.IntType(32), 1)]))
        return ctx.get_dummy_value()
    return sig, codegen


@intrinsic
def _pcg_step(tyctx, hi, lo, ihi, ilo):
    """state <- state * MULT + inc (mod 2^128); output rotr64(hi ^ lo, state >> 122)."""
    u64 = types.uint64
    sig = types.UniTuple(u64, 3)(u64, u64, u64, u64)

    def codegen(ctx, builder, sig, args):
        i128, i64 = ir.IntType(128), ir.IntType(64)

        def join(h, l):
            return builder.or_(builder.shl(builder.zext(h, i128), ir.Constant(i128, 64)), builder.zext(l, i128))
        s = builder.add(builder.mul(join(args[0], args[1]), ir.Constant(i128, _MULT)), join(args[2], args[3]))
        nh = builder.trunc(builder.lshr(s, ir.Constant(i128, 64)), i64)
        nl = builder.trunc(s, i64)
        x = builder.xor(nh, nl)
        rot = builder.trunc(builder.lshr(s, ir.Constant(i128, 122)), i64)
        left = builder.and_(builder.sub(ir.Constant(i64, 0), rot), ir.Constant(i64, 63))
        return ctx.make_tuple(builder, sig.return_type, [nh, nl, builder.or_(builder.lshr(x, rot), builder.shl(x, left))])
    return sig, codegen


@njit
def laplace_numba(rng, scale, out):
    for c in range(out.shape[0]):
        e = rng.standard_exponential()
        out[c] = -scale * e if rng.random() < 0.5 else scale * e


@njit
def _laplace_inline(rng, scale, out, one_word):
    hi, lo, ihi, ilo = _pcg_load(rng)
    for c in range(out.shape[0]):
        while True:  # numba's random_standard_exponential on the inlined words
            hi, lo, r0 = _pcg_step(hi, lo, ihi, ilo)
            ri = r0 >> np.uint64(3)
            idx = ri & np.uint64(0xFF)
            ri >>= np.uint64(8)
            x = ri * we_double[idx]
            if ri < ke_double[idx]:
                e = x
                break
            _pcg_store(rng, hi, lo)  # rare tail: numba's own draws, then reload the state
            if idx == 0:
                e = ziggurat_exp_r - np.log1p(-rng.random())
                hi, lo, ihi, ilo = _pcg_load(rng)
                break
            ok = (fe_double[idx - 1] - fe_double[idx]) * rng.random() + fe_double[idx] < np.exp(-x)
            hi, lo, ihi, ilo = _pcg_load(rng)
            if ok:
                e = x
                break
        if one_word:
            top = r0 & np.uint64(1)
        else:  # rng.random() < 0.5  <=>  the top bit of the next word is 0
            hi, lo, r = _pcg_step(hi, lo, ihi, ilo)
            top = r >> np.uint64(63)
        out[c] = (scale * e) * (np.float64(np.int64(top)) * 2.0 - 1.0)
    _pcg_store(rng, hi, lo)


@njit
def laplace_inline(rng, scale, out):
    _laplace_inline(rng, scale, out, False)


@njit
def laplace_one_word(rng, scale, out):
    _laplace_inline(rng, scale, out, True)


@njit
def laplace_adopted(rng, scale, out):
    laplace_noise(scale, rng, out)


@njit
def _loop(f, rng, scale, out, reps):
    s = 0.0
    for _ in range(reps):
        f(rng, scale, out)
        s += out[0]
    return s


def main() -> None:
    n = 1920  # PUCB's counters at RiverSwim S=6 H=20
    a, b = np.empty(n), np.empty(n)
    for seed in range(3):  # the inline sampler is the same stream
        r1, r2 = seeding.generator("bench", "laplace", seed), seeding.generator("bench", "laplace", seed)
        for _ in range(50):
            laplace_inline(r1, 2.0, a)
            laplace_numba(r2, 2.0, b)
            assert np.array_equal(a, b)
            r1.random(), r2.random()
        assert r1.bit_generator.state == r2.bit_generator.state
    print("inline PCG64 == numba's draws: same values, same final generator state")
    reps = 1000
    for name, f in [("two words (before D13)", laplace_numba), ("inline PCG64 (same stream)", laplace_inline),
                    ("one word (different stream)", laplace_one_word),
                    ("one word, public API (adopted)", laplace_adopted)]:
        rng = seeding.generator("bench", "laplace", 9)
        _loop(f, rng, 2.0, a, 2)
        best = min(_timed(f, rng, a, reps) for _ in range(5))
        print(f"{name:32s} {best:5.2f} ns per Laplace")


def _timed(f, rng, a, reps):
    t0 = time.process_time()
    _loop(f, rng, 2.0, a, reps)
    return (time.process_time() - t0) / reps / a.shape[0] * 1e9


if __name__ == "__main__":
    main()
