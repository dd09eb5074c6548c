"""The statements no row checks are registered rows of the ledger with their reason."""
from __future__ import annotations

from privrl.papers.unchecked import UNCHECKED, unchecked_claims, with_unchecked
from privrl.results import verdicts as V

NAMED = {("vietri2020", "Thm 5"), ("vietri2020", "Thm 6"), ("vietri2020", "Lemmas 20-21"), ("garcelon2021", "Lemma 4"),
         ("garcelon2021", "Eq. 6"), ("bai_sdp_pe", "Lemmas 7-9"), ("bai_sdp_pe", "Lemma 17"), ("bai_sdp_pe", "Lemma 10")}


def test_every_statement_the_referee_named_has_a_row_or_a_reason():
    assert {(u.paper, u.item) for u in UNCHECKED} == NAMED
    rows = unchecked_claims({p for p, _ in NAMED})
    assert len(rows) == len(NAMED) and len({r.claim_id for r in rows}) == len(rows)
    for r in rows:  # context, undecided, never a reproduction; the reason is the row's regime text
        assert r.scope == "context" and r.kind == "check" and r.verdict == V.INCONCLUSIVE
        assert r.statement.startswith("not checkable here:") and len(r.regime) > 40


def test_an_entry_with_a_row_of_its_own_or_of_another_paper_is_left_out():
    assert unchecked_claims({"lu2026"}) == []
    got = unchecked_claims({"vietri2020"}, [("vietri2020", "Theorem 6")])  # a design running the lower bound
    assert {r.item for r in got} == {"Thm 5", "Lemmas 20-21"}


def test_the_ledger_lists_them_once_beside_the_rows():
    row = V.Claim("bai_sdp_pe", "Thm 6", "x", "s", "rate", "", "m", V.INCONCLUSIVE)
    out = with_unchecked([row])
    assert out[0] is row and {r.item for r in out[1:]} == {"Lemmas 7-9", "Lemma 17", "Lemma 10"}
    assert with_unchecked(out) == out  # idempotent: a second pass adds nothing
