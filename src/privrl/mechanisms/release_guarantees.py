"""Guarantees that follow a protocol's release pattern: Shuffled-OBI and the SDP counters.

A guarantee states the epsilon of the *whole sequence of releases* one user takes part in, under
a named neighbour relation (docs/decisions/mechanisms.md, "Guarantees that follow the release
pattern"): a shuffle-amplified figure only where the protocol shuffles a batch of users' messages
together before releasing anything (``Guarantee.amplified``), and the SDP counters' replacement
epsilon from their counter accounting. Re-exported by :mod:`.accounting`.
"""
from __future__ import annotations

import math

from privrl.mechanisms.accounting import per_counter_epsilon
from privrl.mechanisms import events as ev
from privrl.mechanisms.accounting import (
    Guarantee,
    event_guarantee,
    garcelon_lemma4_epsilon,
    garcelon_prop5_condition,
    garcelon_prop5_epsilon,
)


def shuffled_obi_guarantees(eps0: float, m: int, H: int, tau: int, delta0: float,
                            shuffled_batch: int = 1) -> list[Guarantee]:
    """Shuffled-OBI's guarantees for the *whole sequence of releases* (decisions, "Guarantees that
    follow the release pattern"): eps0-LDP (Lemma 4) and the eps0-JDP it implies (each user's
    messages enter the released counters once; the billboard lemma), under replacement.

    Prop. 5's amplified ``(eps_{c,k}, delta0)``-JDP is added (``amplified=True``) only when the
    protocol delivers it: the messages of ``shuffled_batch = k >= 2`` users are shuffled together
    before anything is released and Prop. 5's hypothesis ``eps <= log(k/(7 log(4/delta0)) - 1)``
    holds. A protocol that releases each user's messages after its episode (``shuffled_batch =
    1``, privrl's Shuffled-OBI and the note's Alg. 4) protects that user by eps0 alone, whatever
    ``tau``: the figure is then reported in the note only (``eps_{c,tau}`` as printed).
    """
    eps = garcelon_lemma4_epsilon(eps0, m, H)
    p = 2.0 / (math.exp(eps) + 1.0)
    ldp = ev.UserEvent(ev.RREvent(eps), ((ev.REPLACEMENT, int((4 + 2 * m) * H)),))
    prop5 = garcelon_prop5_epsilon(max(int(tau), shuffled_batch), H, m, p, delta0)
    out = [
        event_guarantee("LDP", ldp, "Garcelon et al. Lemma 4", f"per-bit eps = {eps:.6g}", paper_epsilon=eps0),
        Guarantee("JDP", eps0, 0.0, "Garcelon et al. Lemma 4 (eps0-LDP => eps0-JDP, billboard lemma)",
                  "whole sequence of releases: every user's messages are released with its episode's counts "
                  f"(a shuffled batch of {shuffled_batch}), so Prop. 5's amplification (eps_c,{max(int(tau), 1)} = "
                  f"{prop5:.4g} as printed) is not delivered", ev.REPLACEMENT),
    ]
    if shuffled_batch >= 2 and garcelon_prop5_condition(eps, shuffled_batch, delta0) and math.isfinite(prop5):
        out.append(Guarantee("JDP", garcelon_prop5_epsilon(shuffled_batch, H, m, p, delta0), delta0,
                             "Garcelon et al. Prop. 5 / Thm 6 (shuffle amplification)",
                             f"batches of {shuffled_batch} users shuffled before release", ev.REPLACEMENT,
                             amplified=True))
    return out


def sdp_counters_guarantee(epsilon: float, beta: float, H: int, source: str, note: str = "") -> Guarantee:
    """(eps, beta)-SDP counters of Bai et al. Sec. V-A, each of the three families' counters an
    ``(eps/(3H), beta)`` bit-sum (App. Alg. 4, Lemma 42: one user's bit flips). One user's
    trajectory is a bit in H counters per family; replacing it by another flips up to 2H bits per
    family (it leaves one (h, x, a) and enters another at each step, Vietri Claim 1 / D7), each in
    a distinct counter: basic composition gives ``(2 eps, 6 H beta)`` under replacement -- the
    neighbouring relation of Bai et al.'s SDP definition ("differ in one user's data"). Lemma 10 /
    Thm 11 state (eps, beta): their proof charges one bit per counter and H per family (decisions)."""
    family = ev.SelfComposedEvent(ev.ComposedEvent((ev.BitSumEvent(per_counter_epsilon(epsilon, H), beta),) * 3), 2 * H)
    if 6.0 * H * beta >= 1.0:  # basic composition leaves no (eps, delta) guarantee
        return Guarantee("SDP", math.inf, 0.0, source, f"{note}; vacuous: 6 H beta = {6.0 * H * beta:.3g} >= 1")
    return event_guarantee("SDP", ev.UserEvent(family, ((ev.REPLACEMENT, 1),)), source, note)


def sdp_pe_guarantee(epsilon: float, beta: float, H: int = 1) -> Guarantee:
    """SDP-PE with the shuffle Privatizer (Bai et al. Lemma 10, Thm 11; Alg. 4 per counter at
    eps/(3H)): ``(2 eps, 6 H beta)``-SDP under replacement (:func:`sdp_counters_guarantee`; the
    paper states (eps, beta))."""
    return sdp_counters_guarantee(epsilon, beta, H, "Bai et al. Lemma 10 / Thm 11 (Alg. 4, Lemma 42), counter accounting",
                                  f"neighbouring datasets differ in one user's trajectory: 2H bit flips per family; "
                                  f"the paper states ({epsilon:g}, {beta:g})-SDP")
