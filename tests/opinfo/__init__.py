"""The operator registry: every module in this package defines `OPS`, a list of OpInfo.

One module per operator family keeps parallel work in separate files; REGISTRY gathers them.
"""

import importlib
import pkgutil

from opinfo.core import OpInfo, SampleInput  # noqa: F401

FAMILIES = {}  # module name -> its OPS
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name not in ("core", "errors"):  # errors.py holds ERRORS, not OPS
        FAMILIES[_info.name] = importlib.import_module(f"{__name__}.{_info.name}").OPS
REGISTRY = [info for ops in FAMILIES.values() for info in ops]
