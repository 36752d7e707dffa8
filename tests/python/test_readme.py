"""The README's Python examples, run as written (the torchao one skips when
torch or torchao is not installed)."""

import re

import pytest

from conftest import ROOT


def _blocks():
    text = (ROOT / "README.md").read_text()
    sec = text.split("## Python", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", sec, re.S)


def test_readme_has_examples():
    assert len(_blocks()) == 2


def test_readme_numpy_example():
    exec(compile(_blocks()[0], "README.md:python-1", "exec"), {})


def test_readme_torchao_example(capsys):
    pytest.importorskip("torch", reason="torch is not installed")
    pytest.importorskip("torchao", reason="torchao is not installed")
    exec(compile(_blocks()[1], "README.md:python-2", "exec"), {})
    assert "0 mismatches, 0 accepted variations: PASS" in capsys.readouterr().out
