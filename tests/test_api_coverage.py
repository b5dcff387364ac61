"""The API manifest, the coverage comparison, and the names we claim to support.

tests/api_supported.txt lists the PyTorch names torchlite fully supports (same parameter names,
order and defaults as tools/api_manifest.json records). A name on it that goes missing or
changes its parameters fails here; `python -m torchlite.utils.api_coverage` adds newly
supported names to it. None of this needs PyTorch, except the check that the checked-in
manifest is what tools/api_manifest.py writes today.
"""

import subprocess
import sys
import types

import pytest

from torchlite.utils import _api_signatures as sig
from torchlite.utils import api_coverage as cov

KINDS = {"function", "class", "dtype", "object", "property"}


@pytest.fixture(scope="module")
def manifest():
    return cov.load_manifest()


def test_manifest_is_readable(manifest):
    assert manifest["torch_version"]
    assert {"torch", "torch.Tensor", "torch.nn.functional", "torch.linalg"} <= set(manifest["namespaces"])
    for ns_name, entries in manifest["namespaces"].items():
        assert entries, f"{ns_name} has no names"
        assert list(entries) == sorted(entries), f"{ns_name} is not sorted"
        for name, entry in entries.items():
            where = f"{ns_name}.{name}"
            assert entry["kind"] in KINDS, where
            for params in entry.get("sigs") or []:
                assert all(sig.parse_param(p) is not None for p in params), f"{where}: {params}"
    for rule in manifest["exclusions"]:
        assert rule["rule"] and rule["reason"] and rule["pattern"], rule
        counted = {f"{ns}.{n}" for ns, entries in manifest["namespaces"].items() for n in entries}
        assert not counted & set(rule["names"]), f"{rule['rule']} excludes names the manifest counts"


def test_claimed_names_stay_supported(manifest):
    claims = cov.read_claims()
    assert claims, "tests/api_supported.txt is empty"
    assert claims == sorted(set(claims)), "tests/api_supported.txt must be sorted and without repeats"
    failures = []
    for qualname in claims:
        ns_name, name = cov.split_qualified(qualname, manifest["namespaces"])
        entry = manifest["namespaces"].get(ns_name, {}).get(name)
        if entry is None:
            failures.append(f"{qualname}: not in the manifest (gone from PyTorch? remove the claim)")
            continue
        status, note = cov.status(entry, ns_name, name, cov.torchlite_namespace(ns_name))
        if status != cov.SUPPORTED:
            failures.append(f"{qualname}: {status}" + (f" ({note})" if note else ""))
    assert not failures, "names claimed in tests/api_supported.txt are no longer supported:\n" + "\n".join(failures)


def test_the_guard_catches_a_changed_signature():
    def good(input, other, *, alpha=1, out=None):
        pass

    def renamed(self, other, *, alpha=1, out=None):
        pass

    def new_default(input, other, *, alpha=2, out=None):
        pass

    entry = {"kind": "function", "sig_from": "doc", "sigs": [["input", "other", "*", "alpha=1", "out=None"]]}
    ns = types.SimpleNamespace(good=good, renamed=renamed, new_default=new_default)
    assert cov.status(entry, "torch", "good", ns) == (cov.SUPPORTED, "")
    assert cov.status(entry, "torch", "renamed", ns) == (cov.PARTIAL, "`input` is called `self`")
    assert cov.status(entry, "torch", "new_default", ns) == (cov.PARTIAL, "`alpha` defaults to 2 (PyTorch: 1)")
    assert cov.status(entry, "torch", "absent", ns) == (cov.MISSING, "")


def test_pybind_overloads_are_read_without_types():
    doc = (
        "add(*args, **kwargs)\nOverloaded function.\n\n"
        "1. add(self: Tensor, other: Tensor, *, alpha: Number = 1, out: object = None) -> object\n\n"
        "2. add(self: Tensor, dim: Sequence[int] | int | None = (0, 1)) -> object\n\n"
        "3. add(__args: object = <object object at 0x7f00>, /, *args, **kwargs) -> object\n"
    )
    assert sig.doc_params("add", doc, drop_self=False) == [
        ["self", "other", "*", "alpha=1", "out=None"],
        ["self", "dim=(0, 1)"],
    ]
    # example output in a docstring is not a signature
    assert sig.doc_params("max", "torch.return_types.max(values=tensor([1.]))", drop_self=False) is None


@pytest.mark.parametrize(
    "theirs, ours, same",
    [("1", "1.0", True), ("torch.strided", "torchlite.strided", True), ("[0]", "(0,)", True), ("None", "0", False),
     ("torch.long", "torchlite.int64", True), ("torch.float", "torchlite.float64", False)],
)
def test_default_comparison(theirs, ours, same):
    assert sig.same_default(theirs, ours) is same


def test_report_is_written(tmp_path, manifest):
    report, claims = tmp_path / "api-coverage.md", tmp_path / "claims.txt"
    cov.main(["--report", str(report), "--claims", str(claims)])
    text = report.read_text()
    assert "| `torch.linalg` |" in text and "## Left out of the count" in text
    assert "torch.Tensor.add" in cov.read_claims(claims)


def test_manifest_matches_installed_pytorch(manifest):
    torch = pytest.importorskip("torch")
    if torch.__version__.split("+")[0] != manifest["torch_version"]:
        pytest.skip(f"the manifest is of PyTorch {manifest['torch_version']}, installed is {torch.__version__}")
    script = cov.ROOT / "tools" / "api_manifest.py"
    run = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
