#!/usr/bin/env python3
"""`zapc check` on large schemas: this checkout against a base revision, in paired rounds.

Writes benches/results/zapc_check.md (the README's compile-time table) and prints it.

    python3 benches/check_rounds.py [--base REV] [--rounds N] [--sizes 250,500,1000,2000]

What it does:
  1. builds `zapc` in release mode twice: from this checkout, and from REV (default: the
     revision recorded in the table of the last run, else HEAD~1), checked out with
     `git worktree add --detach` under the target directory;
  2. writes generated schemas of N structs (each with scalars, text, a fixed-size byte
     field through an alias, a nested child, a list and a doc comment, plus one interface
     of up to 200 methods: the shape of benches/benches/zapc_compile.rs) in the syntax
     both revisions read, and a second set that also uses what the base may not read:
     enums, constants, explicit method ordinals, reserved slots and `deprecated`;
  3. runs `zapc check FILE` of both builds in every round, in alternating order, and
     reports per size the median wall time of each and the median of the per-round
     ratios (this checkout / base); the second set is timed with this checkout only.

Every figure is a whole process as a user runs it: start-up, reading the file, parse,
check, layout. Wall times on a shared machine are noisy; the ratio of the same round is
what to read.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benches" / "results" / "zapc_check.md"


def target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def build(checkout: Path, target: Path) -> Path:
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--locked", "-p", "zapc"],
        cwd=checkout,
        check=True,
        env={**os.environ, "CARGO_TARGET_DIR": str(target)},
    )
    return target / "release" / "zapc"


def base_checkout(rev: str) -> Path:
    where = target_dir() / "check-rounds" / "base"
    if where.exists():
        subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, check=True)
    subprocess.run(
        ["git", "worktree", "add", "--quiet", "--detach", str(where), rev], cwd=ROOT, check=True
    )
    return where


def schema(n: int, evolved: bool) -> str:
    """A schema of `n` structs; struct i points at struct i-1 and lists struct i-2."""
    out = ["package big", "", "type hash = bytes_fixed[32]", ""]
    if evolved:
        out += ["const MAX_ITEMS: u32 = 1000", 'const NAME: text = "big"', ""]
        for e in range(max(1, n // 10)):
            out.append(f"enum E{e} : u16 {{")
            out += [f"    V{v} = {v}" for v in range(8)]
            out += ["}", ""]
    for i in range(n):
        dep = " deprecated" if evolved and i % 7 == 3 else ""
        out.append(f"# Struct number {i}.")
        out.append(f"struct S{i}{dep} {{")
        out += ["    Id u64 @0", "    Flag bool @8", "    Name text @12", "    Hash hash @20"]
        out.append("    Count u32 @64" + (" deprecated" if evolved and i % 5 == 1 else ""))
        if evolved:
            out.append(f"    Kind E{i % max(1, n // 10)} @68")
            out.append("    reserved Old u16 @70")
        if i > 0:
            out.append(f"    Prev S{i - 1} @72")
        if i > 1:
            out.append(f"    Items list<S{i - 2}> @76")
        out += ["}", ""]
    out.append("interface Big {")
    methods = min(n, 200)
    for i in range(methods):
        ordinal = f" @{methods - i}" if evolved else ""
        out.append(f"    call{i}{ordinal}(req: S{i}) returns (resp: S{(i + 1) % n})")
    if evolved:
        out.append(f"    reserved @{methods + 1}")
    out.append("}")
    return "\n".join(out) + "\n"


def timed(binary: Path, path: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([str(binary), "check", str(path)], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{binary} check {path} failed:\n{done.stderr}")
    return elapsed


def last_base() -> str | None:
    if not RESULTS.exists():
        return None
    for line in RESULTS.read_text().splitlines():
        if line.startswith("Base revision: `"):
            return line.split("`")[1]
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="git revision to compare with (default: the last run's, else HEAD~1)")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--sizes", default="250,500,1000,2000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    base_rev = args.base or last_base() or "HEAD~1"
    base_sha = subprocess.run(
        ["git", "rev-parse", "--short=12", base_rev], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    head_sha = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()

    work = target_dir() / "check-rounds"
    work.mkdir(parents=True, exist_ok=True)
    new = build(ROOT, target_dir())
    old = build(base_checkout(base_sha), work / "base-target")

    rows = []
    for n in sizes:
        plain = work / f"big-{n}.zap"
        plain.write_text(schema(n, evolved=False))
        evolved = work / f"evolved-{n}.zap"
        evolved.write_text(schema(n, evolved=True))
        lines = plain.read_text().count("\n")
        olds, news, ratios, evolveds = [], [], [], []
        for r in range(args.rounds):
            if r % 2 == 0:
                o, w = timed(old, plain), timed(new, plain)
            else:
                w, o = timed(new, plain), timed(old, plain)
            olds.append(o)
            news.append(w)
            ratios.append(w / o)
            evolveds.append(timed(new, evolved))
        rows.append(
            (
                n,
                lines,
                statistics.median(olds) * 1e3,
                statistics.median(news) * 1e3,
                statistics.median(ratios),
                min(ratios),
                max(ratios),
                statistics.median(evolveds) * 1e3,
            )
        )
        print(f"{n} structs: base {rows[-1][2]:.1f} ms, this {rows[-1][3]:.1f} ms, ratio {rows[-1][4]:.3f}", file=sys.stderr)

    text = [
        "<!-- written by benches/check_rounds.py; do not edit by hand -->",
        f"Base revision: `{base_sha}`; this checkout: `{head_sha}`; {args.rounds} paired rounds; "
        "`zapc check FILE`, release build, wall time of the whole process.",
        "",
        "| structs | lines | base | this checkout | this / base, median of rounds (min–max) | with enums, consts, ordinals, reserved, deprecated |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for n, lines, o, w, ratio, lo, hi, ev in rows:
        text.append(
            f"| {n:,} | {lines:,} | {o:.1f} ms | {w:.1f} ms | {ratio:.3f}× ({lo:.2f}–{hi:.2f}) | {ev:.1f} ms |"
        )
    RESULTS.write_text("\n".join(text) + "\n")
    print("\n".join(text))
    subprocess.run(["git", "worktree", "remove", "--force", str(work / "base")], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
