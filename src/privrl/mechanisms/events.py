"""Privacy events: what a mechanism did, as data (the ``dp_accounting.DpEvent`` pattern).

A mechanism kind declares the event of one release to one counter (``MechanismKind.event``);
an agent describes its whole interaction as a composition of such events plus how many unit
changes one neighbouring user causes under each neighbour relation; the accounting functions
of :mod:`.accounting` turn that into guarantees. Events hold parameters only -- no numbers are
computed here.

Neighbour relations (:data:`NEIGHBOURS`): ``"add/remove"`` (one user's data is added or
removed) and ``"replacement"`` (one user's data is replaced by another). A unit change of a
counting event is one stream element / one input changing by at most its ``sensitivity``.
"""
from __future__ import annotations

from dataclasses import dataclass

ADD_REMOVE = "add/remove"
REPLACEMENT = "replacement"
NEIGHBOURS = (ADD_REMOVE, REPLACEMENT)


@dataclass(frozen=True)
class NoPrivacyEvent:
    """Exact release: no guarantee."""


@dataclass(frozen=True)
class LaplaceEvent:
    """Laplace mechanism ``x + Lap(scale)``: ``sensitivity / scale``-DP per unit change
    (Dwork, McSherry, Nissim & Smith 2006)."""

    scale: float
    sensitivity: float = 1.0


@dataclass(frozen=True)
class TreeEvent:
    """Binary mechanism counter over ``horizon`` releases, node noise ``Lap(scale)``: a stream
    element lies in ``L = horizon.bit_length()`` nodes, so ``L sensitivity / scale``-DP per unit
    change of one element (Vietri et al. 2020 App. A Alg. 5, Thm 12; Chan-Shi-Song 2011)."""

    scale: float
    horizon: int
    sensitivity: float = 1.0


@dataclass(frozen=True)
class BitSumEvent:
    """Shuffle binary summation (Bai et al. App. Alg. 4, Lemma 42): ``(epsilon, beta)``-DP
    for one user's bit flipping."""

    epsilon: float
    beta: float


@dataclass(frozen=True)
class RREvent:
    """Randomized response R_p on one bit, ``p = 2/(e^epsilon + 1)``: ``epsilon``-LDP per bit
    (Garcelon et al. Alg. 2-3)."""

    epsilon: float


@dataclass(frozen=True)
class GaussianEvent:
    """Gaussian mechanism ``x + N(0, sigma^2)`` with l2 ``sensitivity``: ``mu``-GDP,
    ``mu = sensitivity / sigma`` (Dong, Roth & Su 2022; Balle & Wang 2018)."""

    sigma: float
    sensitivity: float = 1.0


@dataclass(frozen=True)
class ComposedEvent:
    """Sequential composition of events (on the same user's data)."""

    events: tuple


@dataclass(frozen=True)
class SelfComposedEvent:
    """``count`` independent repetitions of ``event``."""

    event: object
    count: int


@dataclass(frozen=True)
class UserEvent:
    """An agent's interaction seen from one user: ``changes[relation]`` unit changes of
    ``event`` (group privacy), for each neighbour relation the argument covers."""

    event: object
    changes: tuple  # ((relation, unit changes), ...)

    def changes_for(self, relation: str):
        return dict(self.changes).get(relation)
