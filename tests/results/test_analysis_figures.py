"""The papers' analysis figures drawn through the figure layer (privrl.results.facets) on synthetic
inputs of the default design's shapes: each passes figure_check (one legend, <= 9 in, widths 3.3 /
6.9 in, no ids, no hidden lines, no crowded ticks), and ε is one sequential scale."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml

from privrl.results import facets, figure_check, figures, style
from privrl.results.labels import env_title, human, sci, without_eps

K = np.geomspace(1, 1e6, 60)


def _saved_ok(fig, tmp_path, name):
    style.save_figure(fig, tmp_path / name)
    assert figure_check.figure_problems(tmp_path) == []
    return figure_check.record(tmp_path / f"{name}.png")


def test_labels_for_print():
    assert without_eps("PUCB eps=100 (bonus x0.1)") == "PUCB (bonus x0.1)"
    assert without_eps("SDP-PE, central Privatizer (eps=4)") == "SDP-PE, central Privatizer"
    assert without_eps("PUCB at eps_RLSVI(K=1000)") == "PUCB"
    assert human("Shuffled-OBI eps0=1 tau=100 (bonus x0.1)") == "Shuffled-OBI ε₀=1 τ=100 (bonus ×0.1)"
    assert human("RLSVI (beta_k x1e-4)") == "RLSVI ($\\beta_k$ ×$10^{-4}$)" == human(human("RLSVI (beta_k x1e-4)"))
    assert sci(1e7) == "$10^{7}$" and sci(2.5e6) == "$2.5\\times10^{6}$" and sci(1000) == "1000" and sci(0.25) == "0.25"
    assert env_title({"name": "hard_instance", "params": {"n": 2, "gap": 0.2}}) == "hard instance (n=2, gap 0.2)"
    assert figure_check.ids_in(env_title({"name": "garnet", "params": {"S": 3, "branching": 2, "seed": 1}})) == []
    # a one-state garnet is titled as the bandit it is (it read "garnet (S=1, A=2, branching 1, H=1)")
    assert env_title({"name": "garnet", "params": {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}}) == "2-armed bandit"
    assert env_title({"name": "garnet", "params": {"S": 1, "A": 3, "H": 4}}) == "3-armed bandit (H=4)"
    assert env_title({"name": "garnet", "params": {"S": 1, "H": 1}}) == "3-armed bandit"  # garnet's default A


def test_eps_is_one_sequential_scale():
    _, colour = facets.eps_scale([0.1, 1, 10])
    lum = [0.2126 * r + 0.7152 * g + 0.0722 * b for r, g, b, _ in map(colour, (0.1, 1, 10))]
    assert lum == sorted(lum) and len(set(lum)) == 3  # viridis: dark (small ε, more noise) to light


def test_default_design_regret_figures_pass_the_check(tmp_path):
    """Every (experiment, env) of config/config.yaml, with its real cells (labels, parameters) on
    synthetic curves (saturated agents drawn identical across ε, the case where lines hide each other): <= 9 in, one
    legend, config labels in the text, nothing hidden."""
    from privrl.design import experiments as X

    cfg = yaml.safe_load(open("config/config.yaml"))
    k = np.unique(np.geomspace(1, 1e5, 40).astype(int)).astype(float)
    # the regret figures' most crowded experiments of the default design (rlsvi_regret: only
    # reference lines, one panel, every fitted line on the others: the fits get staggered markers)
    for exp in ("rlsvi_regret", "regret_vs_K", "garcelon_table1", "rlsvi_matched", "lu2026_fixed_eps", "cross_model_coverage"):
        cells = X.expand_cells(cfg, exp)
        env = cells[0].env
        agg, fits = [], []
        for i, c in enumerate(c for c in cells if c.env == env):
            p = dict(c.params)
            same = c.agent in ("pucb", "dp-ucbvi-jdp")
            y = 0.5 * k ** (1.0 if same else 0.5 + 0.02 * i)
            agg.append(pd.DataFrame({"cell": c.cell, "episode": k, "mean": y, "ci_low": 0.9 * y, "ci_high": 1.1 * y}))
            fits.append({"cell": c.cell, "label": c.label, "agent": c.agent, "exponent": 0.5, "log_intercept": 0.0,
                         "window_lo": 1e3, "window_hi": 1e5, "reconstruction": False,
                         **{f"param_{n}": v for n, v in p.items()}})
        agg, fits = pd.concat(agg), pd.DataFrame(fits)
        out = tmp_path / exp
        figures.regret_vs_k(agg, fits, out / "regret", title=env_title(cfg["experiments"][exp]["envs"][env]))
        assert figure_check.figure_problems(out) == [], exp
        r = figure_check.record(out / "regret.png")
        assert r["legends"] == 1 and r["height_in"] <= figure_check.MAX_HEIGHT
    texts = " ".join(figure_check.record(tmp_path / "garcelon_table1/regret.png")["texts"]).replace("\n", " ")
    assert "Shuffled-OBI" in texts and "PUCB" in texts and "LDP-OBI" in texts  # the config's labels


def test_bai_table1_figure_has_no_crowded_ticks(tmp_path):
    from privrl.papers import bai_sdp_pe

    rows = [dict(env="garnet", C=C, C1=C1, epsilon=e, privatizer=mo, regret=v * e ** -0.2, regret_lo=0.9 * v,
                 regret_hi=1.1 * v)
            for C, C1 in [(1, 6), (0.01, 0.06), (1e-4, 6e-4)] for e in (1, 3, 10)
            for mo, v in [("central", 1e6), ("shuffle", 1.6e6), ("local", 1.6e6), ("none", 9e3)]]
    ctx = SimpleNamespace(config={"envs": {"garnet": {"name": "garnet", "params": {"S": 3, "A": 2, "H": 4}}}})
    r = _saved_ok(bai_sdp_pe._figure(ctx, None, pd.DataFrame(rows)), tmp_path, "bai_table1")
    assert r["width_in"] == style.FULL_WIDTH and r["tick_overlaps"] == 0


@pytest.mark.parametrize("n_env", [1, 4])
def test_vietri_lower_bound_figure(tmp_path, n_env):
    from privrl.papers.vietri2020 import bounds as vietri2020_bounds

    panels = []
    for j in range(n_env):
        lines = []
        for e in (0.1, 1, 10):
            R = (2 + j) * np.sqrt(K) / e ** 0.2
            lines += [(K, R, 0.9 * R, 1.1 * R, f"PUCB eps={e:g}", "-"),
                      (K, np.sqrt(3 * K) + 12 * np.log(K) / e, None, None, f"Thm 6 bound, eps={e:g}", ":")]
        panels.append((lines, "cumulative regret", f"Thm 6 on hard instance (n={2 + j})"))
    r = _saved_ok(vietri2020_bounds._figure(panels), tmp_path, "lower_bound")
    assert {"ε = 0.1", "ε = 1", "ε = 10", "PUCB", "Thm 6 bound"} <= set(r["texts"])  # 3 ε: a legend entry each


def test_cross_model_and_rlsvi_figures(tmp_path):
    from privrl.papers import lu2026
    from privrl.papers.cross_paper import cross_model

    rows = [dict(z=z, agent=ag, epsilon=e, regret=1e6 * (i + 1) / e ** 0.5, regret_lo=8e5 * (i + 1) / e ** 0.5,
                 regret_hi=1.2e6 * (i + 1) / e ** 0.5, K=1e7)
            for ags in cross_model.FAMILIES.values() for z in (3, 0) for i, ag in enumerate(ags) for e in (1, 10)]
    _saved_ok(cross_model._figure(pd.DataFrame(rows)), tmp_path / "cm", "cross_model_coverage")
    eps = pd.DataFrame([dict(env="riverswim", beta_scale=1.0, K=k, eps_cor14=0.2 * k ** 0.6,
                             eps_thm13_min=0.19 * k ** 0.6, eps_library_rdp=0.18 * k ** 0.6,
                             eps_exact_gaussian=0.15 * k ** 0.6, is_run_K=k == K[40], delta=1e-5) for k in K])
    mat = pd.DataFrame([dict(env="riverswim", K_i=k, agent=a, regret=v * k ** 0.5, regret_lo=0.9 * v * k ** 0.5,
                             regret_hi=1.1 * v * k ** 0.5) for k in (1e3, 1e4, 1e5)
                        for a, v in (("rlsvi", 1), ("ucbvi", 2), ("pucb", 5), ("dp-ucbvi-jdp", 8))])
    r = _saved_ok(lu2026._figure(eps, mat, {"riverswim": "RiverSwim (S=6, H=20)"}), tmp_path / "lu", "rlsvi_privacy")
    # panels of different quantities: lettered, each legend entry names its panel (one legend, no mixing)
    assert {"(b) DP-UCBVI-JDP", "(a) Cor. 14", "(a) K of the runs"} <= set(r["texts"]) and r["legends"] == 1


def test_bai_scaling_figure_labels_each_variable_with_its_values(tmp_path):
    """A panel per varied variable with its own x axis (ticks at X = 2, 3, 4, not 2×10^0), the
    config labels in the one legend; CIs narrower than a pixel hide nothing (no error-bar caps)."""
    from privrl.papers.bai_sdp_pe import theorems as B

    cells = {"pe": ("pe__C=1__C1=6", "PE, no privacy"), "sdp-pe": ("sdp-pe__C=1__C1=6__epsilon=2", "SDP-PE, shuffle (eps=2)")}
    pts = [dict(axis=ax, x=x, agent=a, cell=cells[a][0], X=x if ax == "X" else 2, A=x if ax == "A" else 2,
                H=x if ax == "H" else 1, regret=v * x, regret_lo=v * x * 0.9999, regret_hi=v * x * 1.0001)
           for ax, xs in (("X", (2, 3, 4)), ("A", (2, 3, 4)), ("H", (1, 2, 3))) for x in xs
           for a, v in (("pe", 3e3), ("sdp-pe", 1.5e6))]
    ctx = SimpleNamespace(infos=[{"cell": c, "agent": a, "label": lab} for a, (c, lab) in cells.items()])
    r = _saved_ok(B._scaling_figure(ctx, pd.DataFrame(pts)), tmp_path, "scaling")
    assert {"states X", "actions A", "horizon H", "PE, no privacy", "SDP-PE, shuffle (ε=2)", "3"} <= set(r["texts"])
    assert r["width_in"] == style.FULL_WIDTH and not any("10^{0}" in t for t in r["texts"])


def test_lu_fixed_eps_figure_puts_eps_on_an_axis(tmp_path):
    """Regret at K against ε (no 'eps=1' category ticks), RLSVI at its own ε as a level, and
    RLSVI's curve against a sqrt(K) guide; one column, one legend."""
    from privrl.papers.lu2026 import comparisons as L

    rows = [dict(env="riverswim", group=f"eps={e:g}", agent=a, name=n, epsilon=float(e), regret=v,
                 regret_lo=0.9 * v, regret_hi=1.1 * v)
            for e in (1, 10, 100) for a, n, v in (("rlsvi", "RLSVI", 3e6), ("pucb", "PUCB", 3e6 / e ** 0.5),
                                                  ("dp-ucbvi-jdp", "DP-UCBVI (JDP, recon.)", 2e6 / e))]
    rows.append(dict(env="riverswim", group="RLSVI's own eps", agent="rlsvi", name="RLSVI", epsilon=5.6e5,
                     regret=3e4, regret_lo=2.9e4, regret_hi=3.1e4))
    rate = pd.DataFrame({"env": "riverswim", "K": K, "regret": 15 * np.sqrt(K)})
    r = _saved_ok(L._figure(pd.DataFrame(rows), rate, {"riverswim": "RiverSwim (S=2, H=3)"}), tmp_path, "fixed_eps")
    assert r["width_in"] == style.COLUMN_WIDTH and r["legends"] == 1
    assert {"privacy level ε", "episodes K", "(a) PUCB", "RiverSwim (S=2, H=3)",
            "(b) $\\sqrt{K}$ through the last point"} <= set(r["texts"])
    assert any("its own ε" in t for t in r["texts"]) and not any("eps" in t for t in r["texts"])
