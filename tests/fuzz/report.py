"""Counts by family (the tests/opinfo module names) and the findings, each with a reproducer.
Columns: matched NumPy; torch: matched PyTorch where NumPy differs or has no answer; rounding:
within float32 rounding of NumPy's float64 answer where both differ; returned with nothing to
compare; raised; wrong; crash."""

from collections import Counter, defaultdict

from tests.fuzz.check import reproducer


def counts(results):
    """{family: Counter of calls, matched, torch, rounding, returned, raised, raised:<type>, wrong, crash}."""
    table = defaultdict(Counter)
    for r in results:
        row = table[r.case["family"]]
        row["calls"] += 1
        row[r.outcome] += 1
        if r.outcome == "raised":
            row[f"raised:{r.detail}"] += 1
    return dict(sorted(table.items()))


def findings(results):
    """Crashes and wrong answers grouped by (outcome, op, kind): [(key, count, first Result)]."""
    groups = defaultdict(list)
    for r in results:
        if r.outcome in ("crash", "wrong"):
            groups[(r.outcome, r.case["op"], r.case["kind"])].append(r)
    return [(key, len(rs), rs[0]) for key, rs in sorted(groups.items())]


def format_report(results):
    lines = [f"{'family':<22}{'calls':>8}{'matched':>9}{'torch':>7}{'rounding':>9}{'returned':>9}{'raised':>8}{'wrong':>7}"
             f"{'crash':>7}  raised by type"]
    total = Counter()
    for fam, row in counts(results).items():
        total.update(row)
        raised = ", ".join(f"{k[7:]} {v}" for k, v in row.most_common() if k.startswith("raised:"))
        lines.append(f"{fam:<22}{row['calls']:>8}{row['matched']:>9}{row['torch']:>7}{row['rounding']:>9}{row['returned']:>9}"
                     f"{row['raised']:>8}{row['wrong']:>7}{row['crash']:>7}  {raised}")
    lines.append(f"{'total':<22}{total['calls']:>8}{total['matched']:>9}{total['torch']:>7}{total['rounding']:>9}{total['returned']:>9}"
                 f"{total['raised']:>8}{total['wrong']:>7}{total['crash']:>7}")
    found = findings(results)
    if found:
        lines.append("")
        lines.append(f"{len(found)} findings (outcome, op, kind: count, first case):")
    for (outcome, op, kind), n, first in found:
        lines.append(f"- {outcome} {op} [{kind}] x{n}: {first.detail}")
        lines.append(f"    {reproducer(first.case)}")
    return "\n".join(lines)
