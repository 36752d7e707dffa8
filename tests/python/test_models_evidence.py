"""mxconform.models() shows the model table's evidence as `mxc models`
does (issue 23): one source for the status, level, capture rows, GPUs and
capture files (docs/models.md is checked against the same table by
tests/models_doc_test.sh)."""

import mxconform as mx

from conftest import run_mxc

HARDWARE = ("hardware captures", "hardware captures (proxy)")


def _cli_evidence(mxc_bin):
    plain = run_mxc(mxc_bin, "models").stdout.splitlines()
    col = plain[0].index("status")
    status = {line.split()[0]: line[col:].strip() for line in plain[1:]}
    evidence, cur = {}, None
    for line in run_mxc(mxc_bin, "models", "-v").stdout.splitlines()[1:]:
        if not line.startswith(" "):
            cur = line.split()[0]
        elif line.strip().startswith("evidence: "):
            lvl, rows, gpus, caps = line.strip()[len("evidence: "):].split(
                " | ")
            evidence[cur] = (lvl, int(rows[5:]), gpus[5:], caps[9:])
    return status, evidence


def test_models_evidence_matches_cli(mxc_bin):
    status, evidence = _cli_evidence(mxc_bin)
    py = {m["name"]: m for m in mx.models()}
    assert set(py) == set(status) == set(evidence)
    for name, m in py.items():
        assert m["status"] == status[name], name
        assert (m["evidence"], m["capture_rows"], m["capture_gpus"] or "-",
                m["captures"] or "-") == evidence[name], name


def test_captured_models_are_not_unverified():
    py = {m["name"]: m for m in mx.models()}
    # The models that replay the km-hardware captures bit for bit.
    for name in ("sm89_mma_fp8_f32", "sm89_mma_fp8_f16", "sm90_wgmma_fp8_f32",
                 "sm90_wgmma_f16_f32", "sm90_wgmma_tf32_f32",
                 "sm100_tcgen05_f16_f32", "sm100_tcgen05_tf32_f32"):
        assert py[name]["evidence"] in HARDWARE, name
        assert py[name]["capture_rows"] > 0, name
        assert "unverified" not in py[name]["status"], name
    for m in py.values():
        assert (m["evidence"] in HARDWARE) == (m["capture_rows"] > 0), m
        assert ("unverified on hardware" in m["status"]) == (
            m["capture_rows"] == 0), m
