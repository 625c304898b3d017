"""Type annotations of the public API: every public method of Model, System and Result and
``mechdae.load`` is annotated (parameters and return), the annotations resolve, and the
package ships its ``py.typed`` marker (PEP 561) so editors and type checkers use them."""
import inspect
import typing

import mechdae as md
from mechdae.components import Component, Connector
from mechdae.dsl.bodies import PlanarBody, SpatialBody

NAMES = {"Model": md.Model, "System": md.System, "Result": md.Result,
         "Component": Component, "Connector": Connector, "PlanarBody": PlanarBody,
         "SpatialBody": SpatialBody}


def _public_functions():
    out = [("load", md.load)]
    for cls in (md.Model, md.System, md.Result):
        for name, f in inspect.getmembers(cls):
            if not name.startswith("_") and inspect.isfunction(f):
                out.append((f"{cls.__name__}.{name}", f))
            elif isinstance(inspect.getattr_static(cls, name, None), classmethod):
                out.append((f"{cls.__name__}.{name}", getattr(cls, name).__func__))
    return out


def test_public_api_is_fully_annotated_and_resolves():
    funcs = _public_functions()
    assert len(funcs) >= 59                      # load + 24 Model + 24 System + 10 Result
    missing = []
    for name, f in funcs:
        sig = inspect.signature(f)
        for p in list(sig.parameters.values())[1 if "." in name else 0:]:
            if p.annotation is inspect.Parameter.empty:
                missing.append(f"{name}({p.name})")
        if sig.return_annotation is inspect.Signature.empty:
            missing.append(f"{name} -> ?")
        hints = typing.get_type_hints(f, localns=NAMES)   # every annotation resolves
        assert "return" in hints, name
    assert not missing, missing


def test_key_signatures_say_what_they_take_and_give():
    hints = typing.get_type_hints(md.System.simulate, localns=NAMES)
    assert hints["return"] is md.Result and hints["t_final"] is float
    assert typing.get_type_hints(md.Model.compile, localns=NAMES)["return"] is md.System
    assert typing.get_type_hints(md.load, localns=NAMES)["return"] is md.Model


def test_py_typed_marker_ships_with_the_package():
    import importlib.resources as ir
    assert ir.files("mechdae").joinpath("py.typed").is_file()
    import tomllib
    from conftest import REPO
    with open(REPO / "pyproject.toml", "rb") as fh:
        data = tomllib.load(fh)
    assert "py.typed" in data["tool"]["setuptools"]["package-data"]["mechdae"]


def test_component_constructors_are_annotated():
    from mechdae.components import planar, rotational, spatial, translational
    missing = []
    for mod in (planar, spatial, translational, rotational):
        for name in mod.__all__:
            cls = getattr(mod, name)
            if not isinstance(cls, type) or cls.__module__ != mod.__name__ or \
                    "__init__" not in cls.__dict__:
                continue
            hints = typing.get_type_hints(cls.__init__)
            params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
            missing += [f"{name}({p})" for p in params if p not in hints]
            if "return" not in hints:
                missing.append(f"{name} -> ?")
    assert not missing, missing
    assert typing.get_type_hints(planar.BodyShape.__init__)["name"] is str


def test_component_authoring_methods_are_annotated():
    missing = []
    for name, f in inspect.getmembers(Component, inspect.isfunction):
        if name.startswith("_"):
            continue
        hints = typing.get_type_hints(f, localns=NAMES)
        params = [p for p in inspect.signature(f).parameters if p != "self"]
        missing += [f"Component.{name}({p})" for p in params if p not in hints]
        if "return" not in hints:
            missing.append(f"Component.{name} -> ?")
    assert not missing, missing
