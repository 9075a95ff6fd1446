#!/usr/bin/env python3
"""Write README-tables.md and chart.svg from one run of benches/run.sh.

Reads criterion's estimates (target/criterion/<group>/<codec>/new/estimates.json,
median point estimate), the allocation counter's JSON, the load generator's JSON
reports, the machine facts and the perf profiles in the raw folder. Standard library
only.
"""

import argparse
import json
import math
import os
import sys

GROUPS = [
    ("decode_request", "Decode request"),
    ("decode_response", "Decode response"),
    ("encode_request", "Encode request"),
    ("encode_response", "Encode response"),
    ("roundtrip", "Round trip (encode req, decode req, encode resp, decode resp)"),
    ("handler", "Handler (decode request, compute, encode response)"),
]
CODECS = [
    ("zap_fixed", "ZAP, fixed layout (eth.zap)"),
    ("zap_fixed_pooled", "ZAP, fixed layout, BuilderPool get/return"),
    ("zap_fixed_direct", "ZAP, fixed layout, constant-offset writer (floor)"),
    ("zap_tails", "ZAP, Go layout with tails (tails.zap)"),
    ("prost", "protobuf (prost)"),
    ("sonic_rs_str", "sonic-rs, hex as strings"),
    ("sonic_rs_bytes", "sonic-rs, hex to bytes"),
    ("serde_json_str", "serde_json, hex as strings"),
    ("serde_json_bytes", "serde_json, hex to bytes"),
]
NAMES = dict(CODECS)
REFS = ["sonic_rs_str", "sonic_rs_bytes", "serde_json_str", "serde_json_bytes"]
E2E = [
    ("zap", "eth-rpc, ZAP/TCP"),
    ("zap-node", "eth-rpc, ZAP/TCP, node framing"),
    ("http", "eth-rpc, JSON-RPC/HTTP"),
    ("zap-echo", "baseline: tokio length-delimited echo"),
    ("http-fixed", "baseline: hyper, fixed JSON body"),
]


def load_json(path):
    with open(path) as f:
        return json.load(f)


def criterion(root):
    """{group: {codec: median ns}}"""
    out = {}
    for group, _ in GROUPS:
        for codec, _ in CODECS:
            path = os.path.join(root, group, codec, "new", "estimates.json")
            if os.path.exists(path):
                out.setdefault(group, {})[codec] = load_json(path)["median"]["point_estimate"]
    return out


def instructions(raw):
    """{op: {codec: instructions per op}} from callgrind totals over 11,000 operations."""
    out = {}
    path = os.path.join(raw, "instructions.txt")
    if os.path.exists(path):
        for line in open(path):
            parts = line.split()
            if len(parts) == 3:
                out.setdefault(parts[1], {})[parts[0]] = int(parts[2]) / 11000
    return out


def machine(raw):
    facts = {}
    path = os.path.join(raw, "machine.txt")
    if os.path.exists(path):
        for line in open(path):
            key, _, value = line.strip().partition("=")
            facts[key] = value
    return facts


def fmt_ns(ns):
    if ns >= 1000:
        return f"{ns / 1000:.2f} µs"
    if ns >= 100:
        return f"{ns:.0f} ns"
    return f"{ns:.1f} ns"


def fmt_x(x):
    if x >= 10:
        return f"{x:.0f}×"
    return f"{x:.2f}×"


def verdict(value, aim, unit="×"):
    if value >= aim:
        return f"**met** ({value:.2f}{unit} ≥ {aim}{unit})"
    short = (aim - value) / aim * 100
    return f"**missed** by {short:.0f}% ({value:.2f}{unit} < {aim}{unit})"


def codec_tables(bench, lines):
    for group, title in GROUPS:
        rows = bench.get(group, {})
        if not rows:
            continue
        lines.append(f"### {title}")
        lines.append("")
        lines.append("Median time per operation; `×` = how many times faster than that JSON codec "
                     "(its median divided by this one's).")
        lines.append("")
        lines.append("| codec | median | vs sonic-rs (str) | vs sonic-rs (bytes) "
                     "| vs serde_json (str) | vs serde_json (bytes) |")
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: |")
        for codec, _ in CODECS:
            if codec not in rows:
                continue
            ns = rows[codec]
            ratios = [fmt_x(rows[r] / ns) if r in rows else "–" for r in REFS]
            lines.append(f"| {NAMES[codec]} | {fmt_ns(ns)} | " + " | ".join(ratios) + " |")
        lines.append("")


def alloc_table(allocs, lines):
    ops = ["decode_request", "decode_response", "encode_request", "encode_response",
           "roundtrip", "handler"]
    cells = {(r["codec"], r["op"]): r for r in allocs["allocs"]}
    lines.append(f"Heap allocations per operation (and bytes allocated), counted by a global "
                 f"allocator over {allocs['iterations']} operations after a warm-up "
                 f"(`benches/src/bin/allocs.rs`, the same code paths as the benches).")
    lines.append("")
    lines.append("| codec | " + " | ".join(ops) + " |")
    lines.append("| --- |" + " ---: |" * len(ops))
    for codec, name in CODECS:
        row = []
        for op in ops:
            r = cells.get((codec, op))
            if r is None:
                row.append("")
            elif r["allocs"] == 0:
                row.append("0")
            else:
                row.append(f"{r['allocs']:.2g} ({r['bytes']:.0f} B)")
        if any(row):
            lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines.append("")


def size_table(allocs, lines):
    lines.append("| codec | request (bytes) | response (bytes) |")
    lines.append("| --- | ---: | ---: |")
    for s in allocs["sizes"]:
        lines.append(f"| {NAMES.get(s['codec'], s['codec'])} | {s['request']} | {s['response']} |")
    lines.append("")
    lines.append("ZAP sizes are whole messages (16-byte header included), without the RPC "
                 "envelope and frame header; JSON sizes are the bare record without the "
                 "JSON-RPC envelope; the JSON framings give the same bytes.")
    lines.append("")


def e2e_table(e2e, rounds, lines):
    lines.append("| server | depth | req/s (median round) | every round | p50 | p99 | p99.9 | max "
                 "| answers checked | errors |")
    lines.append("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for depth in (1, 16):
        for target, name in E2E:
            r = e2e.get((target, depth))
            if r is None:
                continue
            every = ", ".join(f"{x['req_per_s'] / 1000:,.0f}k" for x in rounds[(target, depth)])
            lines.append(
                f"| {name} | {depth} | {r['req_per_s']:,.0f} | {every} | {r['p50_us']:,.0f} µs "
                f"| {r['p99_us']:,.0f} µs | {r['p999_us']:,.0f} µs | {r['max_us']:,.0f} µs "
                f"| {r['checked']:,} | {r['errors']} |")
    lines.append("")


def instr_table(instr, lines):
    ops = ["decode_request", "decode_response", "encode_request", "encode_response", "handler"]
    lines.append("Instructions per operation counted by `valgrind --tool=callgrind` "
                 "(`allocs --only CODEC/OP`, 11,000 operations, minus an empty run). Unlike "
                 "time, these do not move when other processes load the machine; they include "
                 "a few instructions of loop and indirect-call overhead per operation for "
                 "every codec. Ratio = sonic-rs (hex as strings, its cheaper framing) ÷ this.")
    lines.append("")
    lines.append("| codec | " + " | ".join(ops) + " |")
    lines.append("| --- |" + " ---: |" * len(ops))
    for codec, name in CODECS:
        cells = []
        for op in ops:
            n = instr.get(op, {}).get(codec)
            ref = instr.get(op, {}).get("sonic_rs_str")
            if n is None:
                cells.append("")
            elif ref and codec != "sonic_rs_str":
                cells.append(f"{n:,.0f} ({fmt_x(ref / n)})")
            else:
                cells.append(f"{n:,.0f}")
        if any(cells):
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")


def aims(bench, allocs, e2e, lines, instr=None):
    instr = instr or {}
    lines.append("| aim | measured (median time) | verdict (time) | instructions ratio (callgrind) |")
    lines.append("| --- | --- | --- | --- |")

    def codec_aim(label, groups, aim):
        for group in groups:
            rows = bench.get(group, {})
            if "zap_fixed" not in rows:
                continue
            best = min((rows[r] for r in ("sonic_rs_str", "sonic_rs_bytes") if r in rows),
                       default=None)
            if best is None:
                continue
            x = best / rows["zap_fixed"]
            ins = instr.get(group, {})
            iref = min((ins[r] for r in ("sonic_rs_str", "sonic_rs_bytes") if r in ins), default=None)
            ix = f"{iref / ins['zap_fixed']:.1f}×" if iref and ins.get("zap_fixed") else "–"
            lines.append(f"| {label}: {group} ≥ {aim}× faster than sonic-rs (its faster framing) "
                         f"| {fmt_ns(rows['zap_fixed'])} vs {fmt_ns(best)} | {verdict(x, aim)} | {ix} |")

    codec_aim("decode", ["decode_request", "decode_response"], 50)
    codec_aim("encode", ["encode_request", "encode_response"], 5)
    codec_aim("handler", ["handler"], 8)
    if allocs:
        cells = {(r["codec"], r["op"]): r["allocs"] for r in allocs["allocs"]}
        ops = ["decode_request", "decode_response", "encode_request", "encode_response", "handler"]
        worst = max(cells.get(("zap_fixed", op), 0) for op in ops)
        lines.append(f"| zero allocations: ZAP decode, encode, handler | max {worst:g} per op "
                     f"| {'**met**' if worst == 0 else '**missed**'} | |")
    zap1, http1 = e2e.get(("zap", 1)), e2e.get(("http", 1))
    if zap1 and http1:
        x = zap1["req_per_s"] / http1["req_per_s"]
        lines.append(f"| 64 connections, no pipelining: ZAP/TCP ≥ 1.3× JSON/HTTP req/s "
                     f"| {zap1['req_per_s']:,.0f} vs {http1['req_per_s']:,.0f} | {verdict(x, 1.3)} | |")
    zap16, echo16 = e2e.get(("zap", 16)), e2e.get(("zap-echo", 16))
    if zap16 and echo16:
        x = zap16["req_per_s"] / echo16["req_per_s"]
        lines.append(f"| depth 16: ZAP server ≥ 0.9× the bare echo baseline "
                     f"| {zap16['req_per_s']:,.0f} vs {echo16['req_per_s']:,.0f} | {verdict(x, 0.9)} | |")
    lines.append("")


def profiles(raw, lines):
    found = False
    for name, title in [
        ("zap-d16", "eth-rpc ZAP/TCP server, 64 connections, depth 16"),
        ("echo-d16", "echo baseline, 64 connections, depth 16"),
        ("zap-d1", "eth-rpc ZAP/TCP server, 64 connections, no pipelining"),
        ("http-d1", "eth-rpc JSON-RPC/HTTP server, 64 connections, no pipelining"),
    ]:
        path = os.path.join(raw, f"profile-{name}.txt")
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            continue
        found = True
        lines.append(f"**{title}** — self time by symbol (perf, cpu-clock, ≥ 1.5%):")
        lines.append("")
        lines.append("```text")
        lines.extend(line.rstrip() for line in open(path))
        lines.append("```")
        lines.append("")
    if not found:
        lines.append("No profile in this run (perf missing, or PROFILE=0).")
        lines.append("")


def svg_chart(bench, e2e, path):
    """Horizontal bars: ns per operation on a log scale for decode request, encode
    response and handler; req/s for the end-to-end runs."""
    panels = [("decode_request", "decode request"), ("encode_response", "encode response"),
              ("handler", "handler")]
    colors = {"zap_fixed": "#1b7837", "zap_fixed_pooled": "#5aae61", "zap_fixed_direct": "#00441b", "zap_tails": "#a6dba0",
              "prost": "#9970ab", "sonic_rs_str": "#f4a582", "sonic_rs_bytes": "#d6604d",
              "serde_json_str": "#92c5de", "serde_json_bytes": "#4393c3"}
    label_w, bar_w, row_h, gap = 260, 420, 16, 34
    width = label_w + bar_w + 90
    lo, hi = 1.0, 10000.0
    out = []
    y = 40

    def xpos(ns):
        ns = min(max(ns, lo), hi)
        return label_w + bar_w * (math.log10(ns) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    body = []
    for group, title in panels:
        rows = bench.get(group, {})
        if not rows:
            continue
        body.append(f'<text x="10" y="{y}" font-weight="bold">{title} (ns per operation, log scale)</text>')
        y += 8
        top = y
        for codec, name in CODECS:
            if codec not in rows:
                continue
            ns = rows[codec]
            body.append(f'<text x="{label_w - 6}" y="{y + 12}" text-anchor="end">{name}</text>')
            body.append(f'<rect x="{label_w}" y="{y + 2}" width="{xpos(ns) - label_w:.1f}" '
                        f'height="{row_h - 4}" fill="{colors[codec]}"/>')
            body.append(f'<text x="{xpos(ns) + 4:.1f}" y="{y + 12}">{fmt_ns(ns)}</text>')
            y += row_h
        for tick in (1, 10, 100, 1000, 10000):
            x = xpos(tick)
            body.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{y}" stroke="#ccc" stroke-dasharray="2,2"/>')
            body.append(f'<text x="{x:.1f}" y="{y + 12}" text-anchor="middle" fill="#666">{fmt_ns(tick)}</text>')
        y += gap
    if e2e:
        peak = max(r["req_per_s"] for r in e2e.values())
        body.append(f'<text x="10" y="{y}" font-weight="bold">end to end, 64 connections (requests per second)</text>')
        y += 8
        for depth in (1, 16):
            for target, name in E2E:
                r = e2e.get((target, depth))
                if r is None:
                    continue
                w = bar_w * r["req_per_s"] / peak
                body.append(f'<text x="{label_w - 6}" y="{y + 12}" text-anchor="end">{name}, depth {depth}</text>')
                fill = "#1b7837" if target == "zap" else ("#4393c3" if target == "http" else "#bbbbbb")
                body.append(f'<rect x="{label_w}" y="{y + 2}" width="{w:.1f}" height="{row_h - 4}" fill="{fill}"/>')
                body.append(f'<text x="{label_w + w + 4:.1f}" y="{y + 12}">{r["req_per_s"]:,.0f}</text>')
                y += row_h
            y += 6
        y += gap - 6
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" '
               f'font-family="sans-serif" font-size="11">')
    out.append(f'<rect width="{width}" height="{y}" fill="white"/>')
    out.append('<text x="10" y="20" font-size="13" font-weight="bold">eth_getBalance: ZAP vs protobuf vs JSON '
               '(benches/run.sh)</text>')
    out.extend(body)
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--criterion", required=True)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    bench = criterion(args.criterion)
    allocs_path = os.path.join(args.raw, "allocs.json")
    allocs = load_json(allocs_path) if os.path.exists(allocs_path) else None
    rounds = {}
    for name in sorted(os.listdir(args.raw)):
        if name.startswith("e2e-") and name.endswith(".json"):
            r = load_json(os.path.join(args.raw, name))
            rounds.setdefault((r["target"], r["depth"]), []).append(r)
    # Each configuration's median round by req/s (its latencies come with it).
    e2e = {key: sorted(rs, key=lambda r: r["req_per_s"])[len(rs) // 2]
           for key, rs in rounds.items()}
    facts = machine(args.raw)
    if not bench:
        sys.exit(f"report.py: no criterion results under {args.criterion}")

    lines = []
    lines.append("<!-- Generated by benches/run.sh (benches/results/report.py): do not edit by hand. -->")
    lines.append("# Benchmark results")
    lines.append("")
    lines.append(f"Measured on **{facts.get('model', '?')}**, {facts.get('nproc', '?')} cores, "
                 f"{facts.get('rustc', '?')}, {facts.get('date', '?')}. "
                 f"Load average at start {facts.get('load_start', '?')}, at end "
                 f"{facts.get('load_end', '?')}: other builds ran on this machine during the "
                 f"run, so absolute numbers are noisy; every comparison below is a ratio "
                 f"measured side by side in the same run. Whole run: "
                 f"{facts.get('elapsed_seconds', '?')} s.")
    lines.append("")
    lines.append("Reproduce with `benches/run.sh` (needs python3, taskset and lscpu from "
                 "util-linux; perf optional). It rewrites this file and `chart.svg`.")
    lines.append("")
    lines.append("## Aims")
    lines.append("")
    instr = instructions(args.raw)
    aims(bench, allocs, e2e, lines, instr)
    lines.append("![ns per operation and end-to-end req/s](chart.svg)")
    lines.append("")
    lines.append("## Codecs (criterion)")
    lines.append("")
    lines.append(f"The `eth_getBalance` record (request: id, block, 20-byte account; response: id, "
                 f"balance, nonce, 32-byte block hash), the same values through every codec "
                 f"(`benches/benches/codecs.rs`). Decoding folds every field into a sink; inputs "
                 f"and outputs go through `std::hint::black_box`; encoders write into a buffer "
                 f"they reuse. Criterion with {facts.get('criterion_seconds', '?')} s measurement "
                 f"and 0.5 s warm-up per benchmark (short, to keep the script within minutes), "
                 f"pinned to core 1 where taskset exists; the median is shown.")
    lines.append("")
    codec_tables(bench, lines)
    if instr:
        lines.append("## Instructions per operation (callgrind)")
        lines.append("")
        instr_table(instr, lines)
    if allocs:
        lines.append("## Allocations per operation")
        lines.append("")
        alloc_table(allocs, lines)
        lines.append("## Wire sizes")
        lines.append("")
        size_table(allocs, lines)
    if e2e:
        lines.append("## End to end (loopback)")
        lines.append("")
        lines.append(f"`benches/src/bin/loadgen.rs`: 64 connections, depth 1 (no pipelining) and "
                     f"16 requests in flight per connection, {facts.get('e2e_warmup', '?')} s "
                     f"warm-up then {facts.get('e2e_seconds', '?')} s measured, "
                     f"{facts.get('e2e_rounds', '?')} rounds with the servers taking turns "
                     f"(the table shows each configuration's median round); servers pinned to "
                     f"core 0 (their tokio runtime then has one worker), the generator (one "
                     f"thread) to core 1 (pinned: {facts.get('pinned', '?')}). ZAP/TCP frames are "
                     f"written and read by the generator itself; JSON-RPC goes over HTTP/1.1 "
                     f"keep-alive with a minimal pipelining client. Every answer is checked (PromiseID, "
                     f"response id, balance and nonce from the ledger; the echo must return the "
                     f"request, the hyper baseline its fixed body); any error fails the run. "
                     f"Latency is from writing a request to reading its answer.")
        lines.append("")
        e2e_table(e2e, rounds, lines)
    lines.append("## Profiles")
    lines.append("")
    profiles(args.raw, lines)
    notes = os.path.join(args.out, "analysis.md")
    if os.path.exists(notes):
        lines.append("## What the numbers and profiles say")
        lines.append("")
        lines.extend(line.rstrip("\n") for line in open(notes))
        lines.append("")
    with open(os.path.join(args.out, "README-tables.md"), "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")
    svg_chart(bench, e2e, os.path.join(args.out, "chart.svg"))


if __name__ == "__main__":
    main()
