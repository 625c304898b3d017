"""The MSL breadth modules as a library: the generated reference in docs/components.md is
the code's, every class declares the SI unit of each parameter, variable and output,
states its physics in a documentation line, and is reached from its domain module
whichever module is imported first."""
import importlib
import inspect
import subprocess
import sys

import pytest

from conftest import REPO
from mechdae.components import _msl_exports
from mechdae.components.reference import reference_tables, unit_of
from mechdae.components.units import units_of_class

# arguments the MSL gives no default (required here too), for building an instance
REQUIRED = dict(f_constant=1.0, f_nominal=1.0, v_nominal=1.0, v_fixed=1.0,
                tau_constant=1.0, tau_nominal=1.0, w_nominal=1.0, w_fixed=1.0, R=1.0, G=1.0,
                C=1.0, L=1.0, m=1.0, J=1.0)


def _classes():
    for domain, entries in _msl_exports.MODULES.items():
        for entry in entries:
            mod, sel = entry if isinstance(entry, tuple) else (entry, None)
            module = importlib.import_module(f"mechdae.components.{mod}")
            for name in sel or module.__all__:
                yield domain, getattr(module, name)


CLASSES = sorted({(d, c.__name__): c for d, c in _classes()}.items())


def test_docs_components_md_is_generated_from_the_code():
    text = (REPO / "docs" / "components.md").read_text()
    assert text.strip() == reference_tables().strip(), (
        "docs/components.md is out of date: regenerate it with "
        "`python -m mechdae.components.reference > docs/components.md`")


@pytest.mark.parametrize("key", [k for k, _ in CLASSES], ids=lambda k: f"{k[0]}.{k[1]}")
def test_every_parameter_variable_and_output_has_its_unit(key):
    cls = dict(CLASSES)[key]
    sig = inspect.signature(cls.__init__)
    kw = {p: REQUIRED[p] for p, v in sig.parameters.items()
          if v.default is inspect.Parameter.empty and p not in ("self", "name")
          and v.kind is not v.VAR_KEYWORD}
    c = cls("c", **kw, **getattr(cls, "_reference_args", {}))
    names = ({n for n, _, _ in c._params} | {n for n, _ in c._outputs} |
             {n for n, _, _ in c._vars})
    table = units_of_class(cls)
    missing = {n for n in names if unit_of(table, n) is None}
    assert not missing, f"{cls.__name__}: no unit for {sorted(missing)}"
    assert all(isinstance(u, str) and u for u in table.values())
    assert cls.__doc__ and len(cls.__doc__.strip()) > 20


BREADTH = sorted({e if isinstance(e, str) else e[0] for es in _msl_exports.MODULES.values()
                  for e in es})


@pytest.mark.parametrize("module", BREADTH)
def test_classes_reach_their_domain_module_whichever_is_imported_first(module, tmp_path):
    code = (f"import mechdae.components.{module}\n"
            "from mechdae.components import translational as tr, rotational as rot, "
            "electrical as el\n"
            "for m, names in ((tr, ['ConstantForce', 'IdealGearR2T', 'Rod', 'PowerSensor']),"
            " (rot, ['Speed', 'Disc', 'PowerSensor']),"
            " (el, ['Gyrator', 'StepVoltage', 'PotentialSensor'])):\n"
            "    assert all(n in m.__all__ and hasattr(m, n) for n in names), m\n"
            "    assert len(set(m.__all__)) == len(m.__all__), m\n")
    # outside the repository root: under CI's plain install "-c" there would import the
    # unbuilt source tree
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
