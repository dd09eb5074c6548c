"""Garcelon et al. (ICML-21 note): Shuffled-OBI and LDP-OBI across a nested family, beside the one
power of a dimension Thm 6 (Eq. 9) prints: the burn-in term tau H (linear in H). Analysis
``garcelon2021_dimensions``: :func:`privrl.papers.dimensions.analysis` with the table below.

Eq. 9: Delta(K) <= O(sqrt(K) + tau H + sqrt(2K) e^{eps/2}/(e^eps - 1)); footnote 4: "we remove
dependencies on S, A and H" -- the sqrt(K) and privacy terms print no power of S, A or H, so their
rows say "not printed". The tau H term is what R(tau) - R(tau = 0) isolates (tau random-policy
burn-in episodes, each costing at most H). Table 1: LDP-OBI O~(sqrt(K)/eps0), no S, A, H either.
"""
from privrl.papers.dimensions import AgentBound, Cost, DimensionSpec, Power, analysis

NOTE = "Garcelon et al. footnote 4: the note removes the S, A and H dependencies of Eq. 9 but tau H"
EQ9_LEADING = Power("sqrt(K), S, A, H removed", {}, "Thm 6")
EQ9_PRIVACY = Power("sqrt(2K) e^{eps/2}/(e^eps - 1), S, A, H removed", {}, "Thm 6")
EQ9_BURN_IN = Power("tau H", {"H": 1.0}, "Thm 6")
TABLE1_LDP = Power("sqrt(K)/eps0, S, A, H removed", {}, "Table 1")

PRIVACY = Cost("privacy cost D", "D = R - R(noise off)", "noise", 0.0, EQ9_PRIVACY, free=("epsilon",))
SPEC = DimensionSpec(
    paper="garcelon2021", source="Garcelon et al. ICML-21 note, Thm 6 (Eq. 9), Table 1",
    bounds={"shuffled-obi": AgentBound(regret=EQ9_LEADING, note=NOTE, costs=(
                PRIVACY, Cost("burn-in cost", "B = R(tau) - R(tau=0)", "tau", 0.0, EQ9_BURN_IN))),
            "ldp-obi": AgentBound(regret=TABLE1_LDP, note=NOTE, costs=(
                Cost("privacy cost D", "D = R - R(noise off)", "noise", 0.0, TABLE1_LDP, free=("epsilon",)),))})

ANALYSES = {"garcelon2021_dimensions": analysis(SPEC, "garcelon2021_dimensions",
                                                "Garcelon et al. Thm 6 (Eq. 9): Shuffled-OBI across a dimension")}
