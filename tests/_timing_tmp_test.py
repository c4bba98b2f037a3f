import time
from conftest import doit
import test_figures_e2e as t

def test_timing(make_project):
    root = make_project({"figures/small_curves/figure.toml": t.SMALL_CURVES,
                         "figures/wide_points/figure.toml": t.WIDE_POINTS,
                         "tables/all/table.toml": t.ALL_TABLE})
    for args in (["train"], ["figures", "tables"], ["figures", "tables"], ["list"]):
        s = time.time(); r = doit(root, *args); print(args, r.returncode, round(time.time() - s, 2))
