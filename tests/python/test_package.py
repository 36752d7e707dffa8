"""The installed package: type stubs, docstrings on every public function,
help() readable."""

import inspect
import pathlib
import pydoc

import mxconform
import mxconform.testing
import mxconform.vectors


def test_stubs_and_marker_installed():
    pkg = pathlib.Path(mxconform.__file__).parent
    stub = pkg / "_mxconform.pyi"
    assert stub.exists(), "nanobind stubgen output missing from the install"
    text = stub.read_text()
    for name in ("def convert(", "def quantize_mx(", "def gemm(", "def classify("):
        assert name in text
    assert (pkg / "py.typed").exists()


def test_every_public_function_has_a_docstring():
    mods = [mxconform, mxconform.testing, mxconform.vectors]
    for mod in mods:
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if callable(obj):
                doc = inspect.getdoc(obj)
                assert doc and len(doc) > 40, f"{mod.__name__}.{name}"


def test_help_quantize_is_readable():
    text = pydoc.render_doc(mxconform.quantize, renderer=pydoc.plaintext)
    for w in ("profile", "axis", "tile", "tensor_amax", "Quantized"):
        assert w in text
