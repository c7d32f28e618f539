#!/usr/bin/env python3
"""examples/h200/kernelbench/sampled_section.py STOCK OUT: from ncu's stock
SourceCounters.section (STOCK), write OUT, a section "KfSourceSampled" with
what it collects but the per-instruction execution counts (inst_executed,
thread_inst_executed, thread_inst_executed_true) and what is derived from
them: ncu counts those by patching every instruction of the kernel, one
pass that costs hundreds of times the kernel's own run (memprobe.sh's
csec_KfInst). The warp stall samples, the patched memory-access counts
(theoretical L2 sectors, shared wavefronts) and the section's hardware
counters stay. A probe of issue 46, not a file kf ships: it is made on the
machine, from that machine's ncu."""
import re
import sys

DROP = ("inst_executed", "thread_inst_executed", "thread_inst_executed_true")


def blocks(text):
    """Top-level items of a protobuf text: (name, body or value, raw)."""
    i, out = 0, []
    while i < len(text):
        m = re.compile(r"\s*([A-Za-z_]+)\s*(:?)\s*").match(text, i)
        if not m or m.end() == i and i >= len(text):
            break
        name, i = m.group(1), m.end()
        if m.group(2) == ":" and text[i] != "{":
            e = text.index("\n", i)
            out.append((name, None, text[m.start():e + 1]))
            i = e + 1
            continue
        assert text[i] == "{", (name, text[i:i + 40])
        depth, j = 0, i
        while True:
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            elif text[j] == '"':
                j = text.index('"', j + 1)
            j += 1
        out.append((name, text[i + 1:j], text[m.start():j + 1] + "\n"))
        i = j + 1
    return out


def uses_drop(body):
    names = re.findall(r'(?:Name|Expression)\s*:\s*"([^"]*)"', body)
    for n in names:
        for w in re.findall(r"[A-Za-z_][A-Za-z0-9_:]*", n):
            if w in DROP or "avg_thread" in w or \
                    w == "derived__memory_l1_conflicts_shared_nway":
                return True
    return False


def keep_inner(body):
    """The inner Metrics/MetricDefinitions entries of a list block that do
    not use what is dropped."""
    return "".join(raw for name, b, raw in blocks(body)
                   if b is None or not uses_drop(b))


stock = open(sys.argv[1]).read()
res = []
for name, body, raw in blocks(stock):
    if name == "Identifier":
        res.append('Identifier: "KfSourceSampled"\n')
    elif name == "DisplayName":
        res.append('DisplayName: "Source Counters without instruction counts (kf probe)"\n')
    elif name in ("Sets", "Body", "Order", "Description"):
        continue
    elif name in ("MetricDefinitions", "SourceMetrics", "Metrics", "Header"):
        inner = keep_inner(body)
        if inner.strip():
            res.append("%s {\n%s}\n" % (name, inner))
    else:
        res.append(raw)
open(sys.argv[2], "w").write("".join(res))
