"""Statements of the papers that no row checks, registered with the reason.

Each entry is one row of the ledger: kind ``check``, verdict "inconclusive", scope ``context`` (not a
paper claim the scoreboard counts: nothing was measured), its statement "not checkable here: ..." and its
``regime`` the reason -- why no run of this pipeline can check it, which row checks what can be checked of
it, and what would check the rest. :func:`unchecked_claims` gives the rows of the papers a ledger has
rows of; an entry whose (paper, item) already has a row (e.g. a design that runs Vietri et al.'s minimax
family) is left out. docs/decisions/claims.md, "Statements with no row".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence


@dataclass(frozen=True)
class Unchecked:
    paper: str
    item: str
    claim_id: str
    statement: str   # what the paper states
    reason: str      # why no row checks it here, and what does / would


UNCHECKED: tuple[Unchecked, ...] = (
    Unchecked("vietri2020", "Thm 5", "vietri_thm5_not_checkable",
              "PAC lower bound: any eps-JDP (alpha, beta)-PAC agent needs E[n_M] >= Omega(SAH^2/alpha^2 + "
              "SAH ln(1/beta)/(alpha eps)) episodes on some MDP",
              "a minimax statement (there exists an MDP of the hard family) about every eps-JDP agent's stopping "
              "time: one agent on one instance can neither meet it informatively nor contradict it, and PUCB has "
              "no stopping time (its mistakes are counted, Thm 3); its privacy step is checked as algebra "
              "(vietri_lemma8: Lemma 8 and Lemma 10's constant 1/336); the empirical analogue is the minimax "
              "analysis over a gap grid (vietri2020_minimax, config/paper.yaml)"),
    Unchecked("vietri2020", "Thm 6", "vietri_thm6_not_checkable",
              "regret lower bound: any eps-JDP agent has E[Regret(T)] >= Omega(sqrt(HSAT) + SAH log(T)/eps) on some "
              "MDP (T >= S^1.1)",
              "minimax over the hard family (the sqrt term picks the gap with T): on one fixed instance a good "
              "agent's regret turns O(log T), so the sqrt term is untestable there; the design runs neither the "
              "hard family nor vietri2020_lower_bound (privacy term on one instance, informative only past the "
              "linear phase, K >= 4e13 at eps 10: docs/decisions/verdicts.md); its 1/eps enters the ledger as the "
              "lower side of the two-sided JDP eps exponents (privacy_cost_* rows)"),
    Unchecked("vietri2020", "Lemmas 20-21", "vietri_lemmas20_21_not_checkable",
              "App. B.1: on the good event at most 120 S^2AH^4/(alpha eps) polylog non-nice episodes (Lemma 20) and "
              "8CSAH^r/alpha'^r polylog episodes off the nice rate (Lemma 21)",
              "polylogs unstated (any count above the constant-1 form is 'inconclusive'), and the nice sets L_t and "
              "the good event F are internal to the proof: PUCB records neither; the constants enter "
              "vietri2020.bounds.thm3_explicit_bound, which the Thm 3 bound rows score; a check would record L_t "
              "per episode"),
    Unchecked("garcelon2021", "Lemma 4", "garcelon_lemma4_not_checkable",
              "M_sh with per-bit eps = eps0/((4 + 2m)H) is eps0-LDP",
              "the exact level is derived, not sampled: two trajectories differ in at most 2H bits of x, 2(H-1) of y "
              "and 2mH reward bits, so M_sh is ((4 + 2m)H - 2) eps-LDP (mechanisms.accounting.msh_exact_ldp_epsilon), "
              "2 eps below the lemma's charge: valid, slightly loose; the release-sequence rows (Thm 6) use that "
              "exact level; a separate row would restate the formula"),
    Unchecked("garcelon2021", "Eq. 6", "garcelon_eq6_not_checkable",
              "the debiased counters N~^r, N~^p, R~ of the shuffled randomised-response bits",
              "a definition, not a claim; what it is for -- the counters concentrate around the true counts within "
              "Eq. 7-8's widths -- is the garcelon_coverage row (one-sided Clopper-Pearson failure rate vs delta)"),
    Unchecked("bai_sdp_pe", "Lemmas 7-9", "bai_lemmas7_9_not_checkable",
              "|V^pi(r, P) - V^pi(r~, P~ref)| <= O~(sqrt(X^2AH^5/L_b) + X^3A^2H^5 E/L_b) and its model-bias / "
              "model-variance parts (absorbing MDP P')",
              "O~ with no constant, on quantities internal to a stage (the absorbing MDP P', P~ref, the infrequent "
              "set W) that the kernels do not return; their consequence is checked: Lemmas 23-24 stage by stage "
              "(bai_elimination) and Eq. (29) (below_eq29 rows)"),
    Unchecked("bai_sdp_pe", "Lemma 17", "bai_lemma17_not_checkable",
              "sup_pi P_pi[infrequent tuple] <= O(E X^3 A H^4 iota / L_b)",
              "an O() with no constant over the set W internal to a stage; a check would need the crude W and the "
              "true occupancies per stage, with a labelled constant (docs/decisions/claims.md, 'Cheap checks')"),
    Unchecked("bai_sdp_pe", "Lemma 10", "bai_lemma10_error_level_not_checkable",
              "the shuffle Privatizer's error level is E = O~(H/eps) (eps < 1)",
              "E is the kernel's own formula (the Privatizer's deviation bound), so its H/eps form is algebra of our "
              "reconstruction, not a measurement; what can be measured is that E bounds the realised error "
              "(bai_assumption4, every Privatizer) and that the regret grows at most linearly in E (the Thm 6 "
              "error-level row)"),
)


def unchecked_claims(papers: Iterable[str], present: Sequence[tuple[str, str]] = ()) -> list:
    """The registered rows of :data:`UNCHECKED` for ``papers``, leaving out an entry whose (paper,
    canonical item) is in ``present`` (a row already checks it)."""
    from privrl.results import verdicts as V
    from privrl.results.ledger import canonical_item

    want, have = set(papers), {(p, canonical_item(p, i)) for p, i in present}
    out = []
    for u in UNCHECKED:
        if u.paper not in want or (u.paper, canonical_item(u.paper, u.item)) in have:
            continue
        out.append(V.Claim(u.paper, u.item, u.claim_id, f"not checkable here: {u.statement}", "check", "",
                           "no measurement", V.INCONCLUSIVE, u.reason, experiment="", source=f"{u.paper} {u.item}",
                           scope="context"))
    return out


def with_unchecked(claims: Sequence) -> list:
    """``claims`` (results.verdicts.Claim rows) and, for every paper they have rows of, the statements no
    row checks, each a registered context row with its reason (one whose (paper, item) has a row is left
    out, and so is one already in ``claims``). The claims job calls it after ``results.claims.with_power``,
    so the ledger lists them (the papers' layer adds them: results/ never imports papers/)."""
    ids = {c.claim_id for c in claims}
    extra = unchecked_claims({c.paper for c in claims}, [(c.paper, c.item) for c in claims])
    return list(claims) + [c for c in extra if c.claim_id not in ids]
