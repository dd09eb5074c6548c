"""The paper figure style (privrl.results.style) and the regret figure drawn with it: <= 8 lines a
panel, >= 8 pt text, legends outside the data, PDF + 300 dpi PNG, human labels, symlog-safe axes."""
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from privrl.results import figures, style


def _synthetic(agents=("pucb", "private-ucbvi-jdp"), eps=(0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50), K=1000):
    """(agg, fits) of agents x eps cells plus each agent's noise-off twin and one non-private cell."""
    k = np.unique(np.geomspace(1, K, 40).astype(int)).astype(float)
    agg, fits = [], []

    def add(cell, agent, params, slope):
        y = 3 * k ** slope
        agg.append(pd.DataFrame({"cell": cell, "label": cell, "agent": agent, "episode": k, "mean": y,
                                 "ci_low": y * 0.8, "ci_high": y * 1.2}))
        fits.append({"cell": cell, "agent": agent, "exponent": slope, "log_intercept": np.log(3.0),
                     "window_lo": 10.0, "window_hi": float(K), "reconstruction": "ucbvi" in agent,
                     **{f"param_{n}": v for n, v in params.items()}})

    for a in agents:
        for e in eps:
            add(f"{a}__epsilon={e:g}", a, {"epsilon": float(e), "noise": 1.0, "bonus_scale": 1.0}, 0.5 + 0.3 / e)
        add(f"{a}__epsilon=1__noise=0", a, {"epsilon": 1.0, "noise": 0.0, "bonus_scale": 1.0}, 0.5)
    add("ucbvi", "ucbvi", {"bonus_scale": 1.0}, 0.5)
    return pd.concat(agg, ignore_index=True), pd.DataFrame(fits)


def _column_figure(height: float = 2.0):
    import matplotlib.pyplot as plt

    style.use_paper_style()
    fig, ax = plt.subplots(figsize=(style.COLUMN_WIDTH, height), layout="constrained")
    return fig, ax


@pytest.mark.parametrize("view", ["regret", "rate"])
def test_regret_figure_is_paper_ready(tmp_path, view):
    """Through the figure layer: one legend, an ε colour bar, human titles, page width, <= 9 in
    tall, and figure_check passes on what it saved."""
    from privrl.results import figure_check

    agg, fits = _synthetic()
    figures.regret_vs_k(agg, fits, tmp_path / "f", title="RiverSwim (S=6, H=20)", view=view)
    r = figure_check.record(tmp_path / "f.png")
    assert r["legends"] == 1 and r["height_in"] <= figure_check.MAX_HEIGHT and r["min_font_pt"] >= style.MIN_FONT
    texts = r["texts"]
    assert "privacy level ε" in texts and "noise off" in texts and not any("__" in t for t in texts)
    assert any(t.startswith("PUCB") for t in texts) and any("(recon.)" in t for t in texts)
    assert figure_check.figure_problems(tmp_path) == []


def test_regret_figure_uses_the_config_label_without_its_eps(tmp_path):
    """A cell's ``label:`` names its panel (ε is the colour): "PUCB eps=10 (bonus x0.1)" ->
    panel "PUCB (bonus ×0.1)", ε = 10 and 100 as two coloured lines of it."""
    agg, fits = _synthetic(agents=("pucb",), eps=(10, 100))
    fits = fits[~fits.cell.str.contains("noise")].copy()
    fits["label"] = [f"PUCB eps={e:g} (bonus x0.1)" if a == "pucb" else "UCBVI" for a, e in
                     zip(fits.agent, fits.param_epsilon)]
    roles = figures.curve_roles(figures.regret_curves(fits))
    assert set(roles.panel) == {"PUCB (bonus ×0.1)", ""}
    assert roles.loc[roles.panel == "", "line"].tolist() == ["UCBVI"]  # a reference, drawn in every panel
    assert sorted(roles.eps.dropna()) == [10.0, 100.0]


def test_save_figure_writes_vector_pdf_and_300_dpi_png(tmp_path):
    fig, ax = _column_figure()
    ax.plot([1, 2], [1, 2], label="a")
    pdf, png = style.save_figure(fig, tmp_path / "x.png")
    assert pdf.read_bytes().startswith(b"%PDF") and png.exists()
    with Image.open(png) as im:
        assert round(im.info["dpi"][0]) == style.PNG_DPI
        assert im.size[0] == pytest.approx(style.COLUMN_WIDTH * style.PNG_DPI, rel=0.01)
    assert not list(tmp_path.glob(".*"))  # no temporary file left


def test_saved_figure_bytes_do_not_depend_on_when_it_was_drawn(tmp_path, monkeypatch):
    """No timestamp in the PDF or PNG: a rerun (or another node) writes the same bytes."""
    out = []
    for run, when in enumerate((0, 10**9)):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", str(when)) if when else monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
        fig, ax = _column_figure()
        ax.plot([1, 2], [1, 3], label="a")
        out.append(style.save_figure(fig, tmp_path / f"run{run}" / "x"))
    for a, b in zip(*out):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_log_axis_uses_symlog_for_zero_or_negative_values():
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(2)
    assert style.log_axis(a, [0.1, 1, 10]) == "log"
    assert style.log_axis(b, [-3.0, 0.0, 0.5, 100]) == "symlog" and b.get_yscale() == "symlog"


def test_human_labels():
    assert style.agent_name("private-ucbvi-jdp", reconstruction=True) == "Private-UCBVI-JDP (recon.)"
    assert style.agent_name("shuffled-obi+fixed") == "Shuffled-OBI (fixed)"
    params = {"epsilon": 10.0, "bonus_scale": 0.1, "noise": 1.0}
    assert style.cell_label("pucb", params, vary=["epsilon"]) == "PUCB, ε=10"
    assert style.cell_label(None, {**params, "noise": 0.0}, vary=["epsilon", "noise"]) == "noise off"
    assert style.cell_label("ucbvi", {"bonus_scale": 0.003}) == "UCBVI, bonus ×0.003"


def test_theorem_check_figures_are_readable_in_a_column(tmp_path):
    """Every theorem check's figure (tiny sizes): 3.3 in wide, >= 6 pt once printed in a column,
    <= 8 lines a panel, legends off the panels, PDF + PNG (privrl.results.figure_check)."""
    from privrl.papers import registry
    from privrl.results import figure_check

    tiny = {"binary_mechanism": {"T_grid": [64, 256], "n_trials": 20},
            "garcelon_prop5": {"k_grid": [100, 1000], "eps0_grid": [1.0, 2.0]},
            "bitsum_lemma42": {"eps_grid": [0.2, 0.9], "n_trials": 200},
            "lu_cor14": {"grid": [{"K": 1000, "H": 5, "S": 5, "A": 2}, {"K": 10**5, "H": 20, "S": 10, "A": 4}],
                         "deltas": [1e-3, 1e-5, 1e-7], "from_experiments": False},
            "lu_lemma11": {"grid": [{"S": 2, "A": 2, "H": 3}, {"S": 6, "A": 2, "H": 20}, {"S": 10, "A": 4, "H": 5},
                                    {"S": 1, "A": 2, "H": 1}]}}
    checks = registry.theorem_checks()
    for name, sizes in tiny.items():
        c = checks[name]
        c.figure(c.run(np.random.default_rng(0), **c.arguments(sizes, {"experiments": {}})), tmp_path / f"{name}.png")
    assert len(list(tmp_path.glob("*.png"))) == len(tiny)
    assert figure_check.figure_problems(tmp_path) == []


def test_figure_check_flags_a_wide_figure_and_a_legend_over_data(tmp_path):
    import matplotlib.pyplot as plt

    from privrl.results import figure_check

    style.use_paper_style()
    fig, ax = plt.subplots(figsize=(10, 3))
    for i in range(9):
        ax.plot([1, 2], [i, i + 1], label=f"line {i}")
    ax.legend(loc="center")
    style.save_figure(fig, tmp_path / "wide")
    problems = figure_check.figure_problems(tmp_path)
    assert len(problems) == 4 and "prints at 2.64 pt" in problems[0] and "neither a column" in problems[1]
    assert "9 lines" in problems[2] and "legend overlaps" in problems[3]


def _bad(tmp_path, name, draw, height=2.5):
    """Save a column figure drawn by ``draw(fig, ax)`` alone in its folder; its problems."""
    from privrl.results import figure_check

    fig, ax = _column_figure(height)
    draw(fig, ax)
    style.save_figure(fig, tmp_path / name / name)
    return figure_check.figure_problems(tmp_path / name)


def test_figure_check_flags_each_defect_on_a_synthetic_figure(tmp_path):
    from privrl.results import figure_check

    k = np.geomspace(1, 1e5, 30)

    def legends(fig, ax):
        ax.plot(k, k, label="a")
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.3))
        fig.legend(["again"], loc="outside upper center")

    def ticks(fig, ax):
        ax.plot(range(12), range(12))
        ax.set_xticks(range(12), [f"label number {i}" for i in range(12)])

    def ids(fig, ax):
        ax.plot(k, k)
        ax.set_title("bai_table1: dp-ucbvi-jdp")
        ax.set_ylabel("bonus_scale=1")
        ax.set_xlabel("regret at K = 1e+07")

    def hidden(fig, ax):
        for e in (0.1, 1, 10):  # three ε lines on top of each other, told apart by colour alone
            ax.plot(k, np.sqrt(k), color=str(e / 20), label=f"ε={e:g}")

    def fits(fig, ax):  # two fitted lines (dotted, no marker) through one window: one hides the other
        ax.plot(k, k ** 0.6, color="C0"), ax.plot(k, k ** 0.4, color="C1")
        for c in ("C0", "C1"):
            ax.plot(k[10:], k[10:] ** 0.5, color=c, ls=":", label="_guide")

    def bars(fig, ax):  # two error-bar series on top of each other, told apart by colour alone
        for c in ("C0", "C1"):
            ax.errorbar([2, 3, 4], [10, 20, 30], yerr=1, fmt="o-", capsize=2, color=c)

    checks = {"tall": (lambda fig, ax: ax.plot(k, k), 9.6, "in tall"), "legends": (legends, 2.5, "2 legends"),
              "ticks": (ticks, 2.5, "tick labels printed over each other"), "ids": (ids, 2.5, "ids in text"),
              "hidden": (hidden, 2.5, "on top of each other"), "fits": (fits, 2.5, "1 pair(s) of lines drawn alike"),
              "bars": (bars, 2.5, "1 pair(s) of lines drawn alike")}
    for name, (draw, height, expected) in checks.items():
        problems = _bad(tmp_path, name, draw, height)
        assert len(problems) == 1 and expected in problems[0], (name, problems)
    (ids_line,) = _bad(tmp_path, "ids2", ids)
    for shown in ("bai_table1", "bonus_scale=", "1e+07", "the id 'dp-ucbvi-jdp'"):
        assert shown in ids_line, (shown, ids_line)
    assert figure_check.ids_in("eps=1") and figure_check.ids_in("hard_n2_gap0p2")  # lu2026_fixed_eps' old ticks


def test_figure_check_passes_what_hides_nothing(tmp_path):
    """The caps of one error bar whose CI is narrower than a pixel lie on each other: not two
    lines; categorical labels wrapped by facets.category_ticks fit between their ticks."""
    from privrl.results import facets

    def tight_bars(fig, ax):
        ax.errorbar([2, 3, 4], [10, 20, 30], yerr=1e-4, fmt="o-", capsize=2)

    def long_categories(fig, ax):
        ax.bar(range(4), [1, 1, 1, 1])
        facets.category_ticks(ax, ["S=2, A=2, H=3", "S=6, A=2, H=20", "S=10, A=4, H=5", "S=1, A=2, H=1"])

    assert _bad(tmp_path, "tight_bars", tight_bars) == []
    assert _bad(tmp_path, "categories", long_categories) == []


def test_wrapped_titles_keep_mathtext_whole():
    t = style.wrap_text("K=$4\\times10^{6}$, H=3, S=2, A=2; ε $5.6\\times10^{5}$–$5.7\\times10^{5}$", 20)
    assert all(line.count("$") % 2 == 0 for line in t.split("\n")), t
    assert style.wrap_text("PUCB (JDP), z=3", 12) == "PUCB (JDP),\nz=3"


def test_figure_check_accepts_distinguished_overlaps_and_human_text():
    from privrl.results import figure_check

    assert figure_check.ids_in("PUCB (bonus ×0.1), ε = $10^{7}$, RiverSwim (S=6, H=20), $\\beta_k$") == []
    rec = {"texts": [], "lines": [{"title": "", "lines": [
        {"ls": "-", "marker": "o", "every": "(0.02, 0.1)", "path": [[0, 0], [10, 10], [20, 20]]},
        {"ls": "-", "marker": "o", "every": "(0.07, 0.1)", "path": [[0, 0], [10, 10], [20, 20]]}]}]}
    assert figure_check.hidden_lines(rec) == []  # staggered markers: both colours show
    rec["lines"][0]["lines"][1]["every"] = "(0.02, 0.1)"
    assert len(figure_check.hidden_lines(rec)) == 1
    rec["lines"][0]["title"] = "PUCB (2 lines overlapping)"
    assert figure_check.hidden_lines(rec) == []  # said in the panel


def test_layer_marks_fitted_lines_that_coincide(tmp_path):
    """Reference lines whose fits coincide (rlsvi_regret: no ε cell, one panel): the fits get
    staggered markers and the panel says so; the check passes."""
    from privrl.results import facets, figure_check

    k = np.geomspace(1, 1e5, 40)
    data = pd.concat([pd.DataFrame({"x": k, "y": k ** a, "line": lab}) for lab, a in (("A", 0.5), ("B", 0.6))])

    def fits(ax, _name, rows):
        for ln in [ln for ln in ax.get_lines() if not ln.get_label().startswith("_guide")]:
            ax.plot(k[20:], k[20:] ** 0.55, color=ln.get_color(), ls=":", label="_guide")

    fig = facets.line_grid(data, xlabel="episodes K", ylabel="cumulative regret", decorate=fits)
    assert "2 fits overlapping" in fig.axes[0].get_title()
    style.save_figure(fig, tmp_path / "fits")
    assert figure_check.figure_problems(tmp_path) == []


def test_a_good_layer_figure_passes_the_check(tmp_path):
    """Overlapping ε lines through the figure layer: staggered markers and "(n lines overlapping)"."""
    import pandas as pd

    from privrl.results import facets, figure_check

    k = np.geomspace(1, 1e5, 40)
    data = pd.concat([pd.DataFrame({"x": k, "y": np.sqrt(k) * (1 if p == "A" else 1 + 1 / e), "panel": p,
                                    "eps": float(e)}) for p in ("A", "B") for e in (0.1, 1, 10)])
    fig = facets.line_grid(data, xlabel="episodes K", ylabel="cumulative regret")
    assert "overlapping" in fig.axes[0].get_title()
    style.save_figure(fig, tmp_path / "good")
    assert figure_check.figure_problems(tmp_path) == []


def test_paper_figures_pass_the_check():
    """The committed paper_figures/ (regenerated with the default design) pass figure_check."""
    from pathlib import Path

    from privrl.results import figure_check

    root = Path(__file__).resolve().parents[2] / "paper_figures"
    assert figure_check.figure_problems(root) == []


def test_a_closed_figure_still_saves_with_its_readability_record(tmp_path):
    import matplotlib.pyplot as plt

    from privrl.results import figure_check

    fig, ax = _column_figure()
    ax.plot([1, 2], [1, 2])
    plt.close(fig)
    style.save_figure(fig, tmp_path / "closed")
    assert figure_check.record(tmp_path / "closed.png")["width_in"] == style.COLUMN_WIDTH


def test_figure_check_flags_an_empty_panel_and_a_colour_bar_for_two_values(tmp_path):
    """A panel holding only a reference line and zero-height bars reads as a missing plot; a
    colour bar over two ε values reads as a continuum: both flagged. Zeros drawn as points pass."""
    import matplotlib

    def empty(fig, ax):
        ax.bar([0, 1, 2], [0.0, 0.0, 0.0])
        ax.axhline(0.45, color="k", ls="--")

    def zeros_as_points(fig, ax):
        ax.plot([0, 1, 2], [0.0, 0.0, 0.0], ls="none", marker="o", clip_on=False)
        ax.axhline(0.45, color="k", ls="--")

    def two_level_bar(fig, ax):
        ax.plot([1, 2, 3], [1, 2, 3])
        sm = matplotlib.cm.ScalarMappable(norm=matplotlib.colors.LogNorm(10, 100))
        sm.set_array(np.array([10.0, 100.0]))
        fig.colorbar(sm, ax=ax, location="bottom")

    (p,) = _bad(tmp_path, "empty", empty)
    assert "empty panel" in p
    assert _bad(tmp_path, "zeros", zeros_as_points) == []
    (p,) = _bad(tmp_path, "bar", two_level_bar)
    assert "colour bar for 2 value(s)" in p


def test_layer_names_a_few_eps_values_in_the_legend_not_on_a_colour_bar(tmp_path):
    """Two ε values (Garcelon's eps0 = 50, 100): a legend entry each, no colour bar; six keep
    the colour bar; both pass the check."""
    from privrl.results import figure_check

    for name, eps in (("two", (50, 100)), ("six", (0.1, 0.2, 0.5, 1, 2, 5))):
        agg, fits = _synthetic(agents=("pucb",), eps=eps)
        figures.regret_vs_k(agg, fits, tmp_path / name / "f")
        r = figure_check.record(tmp_path / name / "f.png")
        bars = r["colorbar_levels"]
        if name == "two":
            assert bars == [] and {"ε = 50", "ε = 100"} <= set(r["texts"])
        else:
            assert bars == [6] and "privacy level ε" in r["texts"]
        assert figure_check.figure_problems(tmp_path / name) == []


def test_merged_legend_of_two_panels_says_which_panel_each_entry_is_in(tmp_path):
    """A hand-drawn figure whose two panels carry different legends (vietri_lemma8: Eq. (4) and 0
    above, β_s and 1/4 below): one legend, the panels lettered, each entry naming its panel; an
    entry drawn in both panels is not lettered."""
    import matplotlib.pyplot as plt

    from privrl.results import facets, figure_check

    style.use_paper_style()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(style.COLUMN_WIDTH, 5), layout="constrained")
    for ax, what in ((a1, "gap"), (a2, "ratio")):
        ax.plot([1, 2, 3], [1, 2, 3], label=what)
        ax.axhline(1.0, color="k", ls="--", label="bound")
        ax.set_title(f"{what} panel")
        ax.legend()
    facets.print_ready(fig)
    style.save_figure(fig, tmp_path / "two")
    r = figure_check.record(tmp_path / "two.png")
    assert r["legends"] == 1 and {"(a) gap panel", "(b) ratio panel", "(a) gap", "(b) ratio", "bound"} <= set(r["texts"])
    assert figure_check.figure_problems(tmp_path) == []


def test_figure_check_flags_regret_at_k_without_its_k(tmp_path):
    def bare(fig, ax):
        ax.plot([1, 2, 3], [1, 2, 3])
        ax.set_ylabel("regret at K")

    def said(fig, ax):
        from privrl.results.labels import at_k

        ax.plot([1, 2, 3], [1, 2, 3])
        ax.set_ylabel(at_k([1e7, 1e7]))

    (p,) = _bad(tmp_path, "bare", bare)
    assert "'regret at K' does not say which K" in p
    assert _bad(tmp_path, "said", said) == []
