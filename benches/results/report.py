#!/usr/bin/env python3
"""Write README-tables.md and chart.svg from one run of benches/run.sh.

Reads criterion's estimates as run.sh keeps them
(raw/criterion-{native,default}/<group>/<codec>/estimates.json, median point estimate),
the allocation counter's JSON, the load generator's JSON reports, the paired rounds'
summary (benches/paired_rounds.sh), the machine facts and the perf profiles in the raw
folder. Standard library only.
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
    ("logs_encode", "eth_getLogs (100 logs): encode"),
    ("logs_decode", "eth_getLogs (100 logs): read every field"),
    ("logs_field", "eth_getLogs (100 logs): read the transaction hash of the 50th log"),
]
CODECS = [
    ("zap_fixed", "ZAP, fixed layout (eth.zap)"),
    ("zap_fixed_pooled", "ZAP, fixed layout, BuilderPool get/return"),
    ("zap_fixed_direct", "ZAP, fixed layout, constant-offset writer (floor)"),
    ("zap_tails", "ZAP, Go layout with tails (tails.zap)"),
    ("zap", "ZAP (logs.zap)"),
    ("planus", "FlatBuffers (planus; checked on access)"),
    ("capnp", "Cap'n Proto (capnp, default limits)"),
    ("capnp_unlimited", "Cap'n Proto (capnp, no traversal limit)"),
    ("rkyv_checked", "rkyv, checked (bytecheck)"),
    ("rkyv_unchecked", "rkyv, unchecked (trusted input only)"),
    ("postcard", "postcard (serde)"),
    ("prost", "protobuf (prost)"),
    ("sonic_rs_str", "sonic-rs, hex as strings"),
    ("sonic_rs_bytes", "sonic-rs, hex to bytes"),
    ("serde_json_str", "serde_json, hex as strings"),
    ("serde_json_bytes", "serde_json, hex to bytes"),
    ("sonic_rs", "sonic-rs (Ethereum JSON, hex decoded)"),
    ("serde_json", "serde_json (Ethereum JSON, hex decoded)"),
]
NAMES = dict(CODECS)
ZAP = ["zap_fixed", "zap"]
JSON = ["sonic_rs_str", "sonic_rs_bytes", "serde_json_str", "serde_json_bytes", "sonic_rs",
        "serde_json"]
# The zero-copy peers read the way their documentation asks for untrusted input, and
# all of them (their unchecked ways included).
ZERO_COPY_CHECKED = ["planus", "capnp", "rkyv_checked"]
ZERO_COPY = ZERO_COPY_CHECKED + ["capnp_unlimited", "rkyv_unchecked"]
# Every peer's checked read (the logs aim).
CHECKED_PEERS = ZERO_COPY_CHECKED + ["postcard", "prost", "sonic_rs", "serde_json"]
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
    """{group: {codec: median ns}} from the estimates run.sh kept under `root`."""
    out = {}
    for group, _ in GROUPS:
        for codec, _ in CODECS:
            path = os.path.join(root, group, codec, "estimates.json")
            if os.path.exists(path):
                out.setdefault(group, {})[codec] = load_json(path)["median"]["point_estimate"]
    return out


def fastest(rows, codecs):
    """(codec, ns) of the fastest of `codecs` in `rows`, or (None, None)."""
    have = [(rows[c], c) for c in codecs if c in rows]
    if not have:
        return None, None
    ns, codec = min(have)
    return codec, ns


def zap_of(rows):
    return next((c for c in ZAP if c in rows), None)


def instructions(raw):
    """{op: {codec: instructions per op}} from callgrind totals over 11,000 operations."""
    out = {}
    path = os.path.join(raw, "instructions.txt")
    if os.path.exists(path):
        for line in open(path):
            parts = line.split()
            if len(parts) in (3, 4):
                # The fourth column, where present, is how many operations ran (warm-up
                # included); the eth record's counts are over 11,000.
                runs = int(parts[3]) if len(parts) == 4 else 11000
                codec = parts[0].removeprefix("logs:")
                out.setdefault(parts[1], {})[codec] = int(parts[2]) / runs
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
    if ns >= 100000:
        return f"{ns / 1000:.0f} µs"
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


def codec_tables(bench, default, lines):
    for group, title in GROUPS:
        rows = bench.get(group, {})
        if not rows:
            continue
        base = default.get(group, {})
        json_c, json_ns = fastest(rows, JSON)
        zc_c, zc_ns = fastest(rows, ZERO_COPY_CHECKED)
        zu_c, zu_ns = fastest(rows, ZERO_COPY)
        djson_c, djson_ns = fastest(base, JSON)
        lines.append(f"### {title}")
        lines.append("")
        lines.append(f"Median time per operation; `×` = how many times faster than the reference "
                     f"(its median divided by this one's). Fastest JSON here: "
                     f"{NAMES.get(json_c, '–')}; fastest zero-copy peer, checked: "
                     f"{NAMES.get(zc_c, '–')}; fastest zero-copy peer, any way: "
                     f"{NAMES.get(zu_c, '–')}. The last two columns are the default build "
                     f"(no `target-cpu`), with its own fastest JSON ({NAMES.get(djson_c, '–')}).")
        lines.append("")
        lines.append("| codec | median (native) | vs fastest JSON | vs fastest zero-copy, checked "
                     "| vs fastest zero-copy, any | median (default build) "
                     "| vs fastest JSON (default build) |")
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for codec, _ in CODECS:
            if codec not in rows:
                continue
            ns = rows[codec]
            cells = [fmt_x(ref / ns) if ref else "–" for ref in (json_ns, zc_ns, zu_ns)]
            d = base.get(codec)
            cells.append(fmt_ns(d) if d else "–")
            cells.append(fmt_x(djson_ns / d) if d and djson_ns else "–")
            lines.append(f"| {NAMES[codec]} | {fmt_ns(ns)} | " + " | ".join(cells) + " |")
        lines.append("")


def alloc_table(allocs, lines):
    cells = {(r["codec"], r["op"]): r for r in allocs["allocs"]}
    lines.append(f"Heap allocations per operation (and bytes allocated), counted by a global "
                 f"allocator over {allocs['iterations']} operations after a warm-up "
                 f"(`benches/src/bin/allocs.rs`, the same code paths as the benches).")
    lines.append("")
    for prefix, ops in (("", ["decode_request", "decode_response", "encode_request",
                              "encode_response", "roundtrip", "handler"]),
                        ("logs:", ["logs_encode", "logs_decode", "logs_field"])):
        lines.append("| codec | " + " | ".join(ops) + " |")
        lines.append("| --- |" + " ---: |" * len(ops))
        for codec, name in CODECS:
            row = []
            for op in ops:
                r = cells.get((prefix + codec, op))
                if r is None:
                    row.append("")
                elif r["allocs"] == 0:
                    row.append("0")
                else:
                    row.append(f"{r['allocs']:.4g} ({r['bytes']:.0f} B)")
            if any(row):
                lines.append(f"| {name} | " + " | ".join(row) + " |")
        lines.append("")


def size_table(allocs, lines):
    lines.append("| codec | eth request (bytes) | eth response (bytes) |")
    lines.append("| --- | ---: | ---: |")
    for s in allocs["sizes"]:
        if ":" not in s["codec"]:
            lines.append(f"| {NAMES.get(s['codec'], s['codec'])} | {s['request']} "
                         f"| {s['response']} |")
    lines.append("")
    lines.append("| codec | eth_getLogs response, 100 logs (bytes) |")
    lines.append("| --- | ---: |")
    for s in allocs["sizes"]:
        if s["codec"].startswith("logs:"):
            codec = s["codec"][len("logs:"):]
            lines.append(f"| {NAMES.get(codec, codec)} | {s['response']:,} |")
    lines.append("")
    lines.append("ZAP sizes are whole messages (16-byte header included), without the RPC "
                 "envelope and frame header; Cap'n Proto's include its segment table; JSON "
                 "sizes are the bare record without the JSON-RPC envelope; the JSON framings "
                 "give the same bytes.")
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
    ops = ["decode_request", "decode_response", "encode_request", "encode_response", "handler",
           "logs_encode", "logs_decode", "logs_field"]
    lines.append("Instructions per operation counted by `valgrind --tool=callgrind` "
                 "(`allocs --only CODEC/OP`, 11,000 operations, 1,100 for the logs record, "
                 "minus an empty run). Unlike "
                 "time, these do not move when other processes load the machine; they include "
                 "a few instructions of loop and indirect-call overhead per operation for "
                 "every codec. Default build (valgrind cannot run AVX-512 code). Ratio = the "
                 "JSON codec with the fewest instructions in that column ÷ this.")
    lines.append("")
    lines.append("| codec | " + " | ".join(ops) + " |")
    lines.append("| --- |" + " ---: |" * len(ops))
    for codec, name in CODECS:
        cells = []
        for op in ops:
            n = instr.get(op, {}).get(codec)
            _, ref = fastest(instr.get(op, {}), JSON)
            if n is None:
                cells.append("")
            elif ref and codec not in JSON:
                cells.append(f"{n:,.0f} ({fmt_x(ref / n)})")
            else:
                cells.append(f"{n:,.0f}")
        if any(cells):
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")


def logs_size(allocs, codec):
    for s in allocs["sizes"] if allocs else []:
        if s["codec"] == f"logs:{codec}":
            return s["response"]
    return None


def aims(bench, allocs, paired, instr, lines):
    lines.append("| aim | measured (median time, native build) | verdict (time) "
                 "| same ratio by callgrind instructions (default build) |")
    lines.append("| --- | --- | --- | --- |")

    def row(aim, measured, ok, missed_by="", ins=""):
        v = "**met**" if ok else f"**missed**{missed_by}"
        lines.append(f"| {aim} | {measured} | {v} | {ins} |")

    def ins_ratio(group, peers):
        counts = instr.get(group, {})
        z, (p, n) = zap_of(counts), fastest(counts, peers)
        if z is None or p is None:
            return ""
        return f"{counts[z]:,.0f} vs {n:,.0f} ({NAMES[p]}): {n / counts[z]:.2f}×"

    def versus(group, refs, aim, label):
        """ZAP against the fastest of `refs`: at least `aim` times as fast, or faster
        (`aim` None)."""
        rows = bench.get(group, {})
        z, (r, rns) = zap_of(rows), fastest(rows, refs)
        if z is None or r is None:
            return
        x = rns / rows[z]
        need = f"≥ {aim}× {label}" if aim else f"faster than every {label}"
        row(f"ZAP {group.replace('_', ' ')} {need}",
            f"{fmt_ns(rows[z])} vs {fmt_ns(rns)} ({NAMES[r]}): {x:.2f}×",
            x >= aim if aim else x > 1, f" ({x:.2f}×)", ins_ratio(group, refs))

    def vs_json(group, aim):
        versus(group, JSON, aim, "the fastest JSON")

    def vs_peers(group, peers, what):
        versus(group, peers, None, what)

    vs_json("decode_request", 15)
    vs_peers("decode_request", ZERO_COPY_CHECKED, "zero-copy peer's checked read")
    vs_json("encode_response", 10)
    vs_peers("encode_response", ["planus", "capnp", "rkyv_checked"], "zero-copy peer's builder")
    vs_peers("logs_decode", CHECKED_PEERS, "peer's checked read")
    vs_peers("logs_field", CHECKED_PEERS, "peer's checked read")
    zs = logs_size(allocs, "zap")
    sizes = [(logs_size(allocs, c), c) for c in ["planus", "capnp", "rkyv_checked"]]
    sizes = [s for s in sizes if s[0]]
    if zs and sizes:
        small, c = min(sizes)
        x = zs / small
        row("eth_getLogs: ZAP wire size within 1.3× the smallest zero-copy peer's",
            f"{zs:,} vs {small:,} bytes ({NAMES[c]}): {x:.3f}×", x <= 1.3)
    vs_json("handler", 20)
    if paired:
        d16 = paired.get("zap/echo d16")
        if d16:
            row("depth 16: ZAP server ≥ 0.9× the bare echo (paired median, "
                f"{d16['rounds']} rounds, `benches/paired_rounds.sh`)",
                f"median {d16['median']:.3f}×, minimum {d16['min']:.3f}×",
                d16["median"] >= 0.9, f" ({d16['median']:.3f}×)")
    if allocs:
        cells = {(r["codec"], r["op"]): r["allocs"] for r in allocs["allocs"]}
        ops = [("zap_fixed", op) for op in ("decode_request", "decode_response", "encode_request",
                                            "encode_response", "handler")]
        ops += [("logs:zap", op) for op in ("logs_encode", "logs_decode", "logs_field")]
        worst = max(cells.get(k, 0) for k in ops)
        row("zero allocations: ZAP decode, encode, handler, both records",
            f"max {worst:g} per operation", worst == 0)
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
              ("handler", "handler"), ("logs_decode", "eth_getLogs, read every field"),
              ("logs_field", "eth_getLogs, one field of the 50th log")]
    colors = {"zap_fixed": "#1b7837", "zap_fixed_pooled": "#5aae61", "zap_fixed_direct": "#00441b", "zap_tails": "#a6dba0",
              "zap": "#1b7837", "planus": "#e08214", "capnp": "#b35806", "capnp_unlimited": "#fdb863",
              "rkyv_checked": "#8c510a", "rkyv_unchecked": "#dfc27d", "postcard": "#762a83",
              "prost": "#9970ab", "sonic_rs_str": "#f4a582", "sonic_rs_bytes": "#d6604d",
              "serde_json_str": "#92c5de", "serde_json_bytes": "#4393c3",
              "sonic_rs": "#d6604d", "serde_json": "#4393c3"}
    label_w, bar_w, row_h, gap = 260, 420, 16, 34
    width = label_w + bar_w + 90
    lo, hi = 1.0, 1000000.0
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
        for tick in (1, 10, 100, 1000, 10000, 100000, 1000000):
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
    out.append('<text x="10" y="20" font-size="13" font-weight="bold">ZAP vs zero-copy peers, protobuf, '
               'postcard and JSON (benches/run.sh, native build)</text>')
    out.extend(body)
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    bench = criterion(os.path.join(args.raw, "criterion-native"))
    default = criterion(os.path.join(args.raw, "criterion-default"))
    paired_path = os.path.join(args.raw, "paired-summary.json")
    paired = load_json(paired_path) if os.path.exists(paired_path) else None
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
        sys.exit(f"report.py: no criterion results under {args.raw}/criterion-native")

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
    lines.append("Reproduce with `benches/run.sh` (needs capnp from Debian's capnproto, python3, "
                 "taskset and lscpu from util-linux; perf and valgrind optional). It rewrites this "
                 "file and `chart.svg`; criterion's estimates are kept in "
                 "`raw/criterion-native/` and `raw/criterion-default/`. The depth-16 aim comes "
                 "from `benches/paired_rounds.sh` (`raw/paired-summary.json`).")
    lines.append("")
    lines.append("## Aims")
    lines.append("")
    instr = instructions(args.raw)
    aims(bench, allocs, paired, instr, lines)
    lines.append("![ns per operation and end-to-end req/s](chart.svg)")
    lines.append("")
    lines.append("## Codecs (criterion)")
    lines.append("")
    lines.append(f"The `eth_getBalance` record (request: id, block, 20-byte account; response: id, "
                 f"balance, nonce, 32-byte block hash), the same values through every codec "
                 f"(`benches/benches/codecs.rs`). Decoding folds every field into a sink; inputs "
                 f"and outputs go through `std::hint::black_box`; encoders write into a buffer "
                 f"they reuse. The `eth_getLogs` record: 100 logs, each with a block number, "
                 f"transaction index, log index, 1–4 topics of 32 bytes, 0–256 bytes of data, a "
                 f"20-byte address and a 32-byte transaction hash; the JSON codecs carry it in "
                 f"Ethereum's form (quantities and byte strings as `0x` hex) and decode the hex "
                 f"when they read, so every codec delivers the same bytes to the sink (tested in "
                 f"`benches/tests/equivalence.rs`). Criterion with "
                 f"{facts.get('criterion_seconds', '?')} s measurement and 0.5 s warm-up per "
                 f"benchmark (short, to keep the script within minutes on a shared 2-core "
                 f"machine), pinned to core 1 where taskset exists; the median is shown. The "
                 f"native build is `RUSTFLAGS='{facts.get('native_flags', '?')}'` in its own "
                 f"target dir (set by run.sh for the benches only).")
    lines.append("")
    codec_tables(bench, default, lines)
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
    if paired:
        lines.append("## Paired rounds (`benches/paired_rounds.sh`)")
        lines.append("")
        lines.append("Each round drives the servers back to back; the ratio is taken within the "
                     "round, then the median and the minimum over the rounds. CPU is the "
                     "server's user + system time per request, from /proc/<pid>/stat.")
        lines.append("")
        lines.append("| comparison | rounds | median ratio | minimum | every round | "
                     "server CPU per request (µs, medians) |")
        lines.append("| --- | ---: | ---: | ---: | --- | --- |")
        for key, r in paired.items():
            every = ", ".join(f"{x:.3f}" for x in r["ratios"])
            cpu = r.get("cpu_us", "")
            lines.append(f"| {key} | {r['rounds']} | {r['median']:.3f}× | {r['min']:.3f}× "
                         f"| {every} | {cpu} |")
        lines.append("")
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
                     f"Latency is from writing a request to reading its answer."
                     + (" These reports are from an earlier run of run.sh (this one ran with "
                        "E2E=0 and kept them)." if facts.get("e2e_this_run") == "0" else "")
                     + " Ratios between servers are taken in paired rounds, above, not from "
                     "this table.")
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
