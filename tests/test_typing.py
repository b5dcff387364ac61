"""Type checkers read torchlite: py.typed and the generated _C.pyi make a user program's
tensors `Tensor` under mypy, and flag an argument of the wrong type."""

import shutil
from pathlib import Path

import pytest

import torchlite

mypy_api = pytest.importorskip("mypy.api", reason="mypy is in the test extra: pip install -e '.[test]'")

PROGRAM = """\
import torchlite

x = torchlite.ones(2, 3)
y = torchlite.add(x, 1.0)
reveal_type(y)
reveal_type(x.sum(dim=0))
reveal_type(torchlite.sort(x))
torchlite.add(x, "a")
"""


@pytest.mark.slow
def test_mypy_infers_tensor_and_flags_a_bad_argument(tmp_path, monkeypatch):
    # The package as it is installed: the Python sources beside the generated stub of _C.
    pkg = tmp_path / "site" / "torchlite"
    shutil.copytree(Path(torchlite.__file__).parent, pkg, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    stub = Path(torchlite._C.__file__).with_name("_C.pyi")
    assert stub.exists(), f"the build did not install the stub beside the extension: {stub}"
    shutil.copy(stub, pkg / "_C.pyi")
    assert (pkg / "py.typed").exists()
    program = tmp_path / "user_program.py"
    program.write_text(PROGRAM)
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\nmypy_path = {tmp_path / 'site'}\nfollow_imports = silent\n")
    monkeypatch.chdir(tmp_path)  # mypy names the program as it is given: user_program.py
    out, err, status = mypy_api.run([program.name, "--config-file", str(config), "--no-site-packages",
                                     "--cache-dir", str(tmp_path / "cache")])
    assert status == 1, out + err
    lines = out.splitlines()
    assert 'user_program.py:5: note: Revealed type is "torchlite._C.Tensor"' in lines, out
    assert 'user_program.py:6: note: Revealed type is "torchlite._C.Tensor"' in lines, out
    assert 'user_program.py:7: note: Revealed type is "tuple[torchlite._C.Tensor, torchlite._C.Tensor]"' in lines, out
    errors = [line for line in lines if ": error:" in line]
    assert len(errors) == 1 and errors[0].startswith("user_program.py:8: error:") and '"str"' in errors[0], out
