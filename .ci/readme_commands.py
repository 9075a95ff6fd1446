#!/usr/bin/env python3
"""Run the commands of README.md's ```sh blocks as written, so the README cannot promise a
command that does not work on a fresh clone.

    python3 .ci/readme_commands.py [README.md]

Every command of every ```sh block (continuation lines joined, comments dropped) must
match exactly one rule of RULES below, which says what is done with it: run it, run it
as a server (started, probed by the commands after it, stopped with Ctrl-C), build it
without running it, or skip it for the reason written there. A command no rule matches
fails the run (add a rule: nothing in the README goes untested by accident), and so does
a rule that matches no command (a stale rule). Comment lines directly after a command
are its expected output, line by line; `…` in them matches anything.

The commands run with bash. `zapc` comes from the README's own `cargo install` line,
installed into a scratch directory (CARGO_INSTALL_ROOT) put first on the PATH, so nothing
outside the repository's target/ and the scratch directory is touched. Run from .ci/run,
which exports CARGO_TARGET_DIR so these builds reuse CI's.

Needs only python3 (standard library), cargo, bash and curl; a missing tool fails the run.
"""

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

RUN = "run"  # run in the repository root; must exit 0 (and print its expected output)
RUN_SCRATCH = "run in scratch"  # the same, in a scratch directory holding a copy of schemas/
SERVE = "serve"  # start in the background; the commands after it talk to it
BUILD_ONLY = "build only"  # `cargo test ...` run with `--no-run` added: names are checked
SKIP = "skip"

# (pattern on the command with comments removed and words joined by one space, action,
#  why). First match wins; keep each pattern specific to its command.
RULES = [
    # Quick start.
    (r"cargo run -p eth-rpc", SERVE,
     "the example server runs until Ctrl-C: started in the background, ready when it logs "
     "`eth-rpc serving`, used by the commands below, stopped with SIGINT (must exit 0)"),
    (r"cargo test --workspace", SKIP,
     "the full test command: .ci/run runs it (with --locked) as its own step"),
    (r"curl -s -H Content-Type: application/json http://127\.0\.0\.1:8545/rpc -d .*", RUN,
     "JSON-RPC against the server started above; output checked"),
    (r"cargo run -p eth-rpc --example client", RUN,
     "ZAP/TCP against the server started above; output checked"),
    (r"cargo run -q -p zapc -- call --schema schemas/eth\.zap 127\.0\.0\.1:9999 Eth\.(getBalance|newHeads) .*", RUN,
     "zapc call (a call, a stream) against the server started above; output checked"),
    # Your first service.
    (r"cargo run -p todo", SERVE,
     "the first-service example runs until Ctrl-C: started in the background, ready when "
     "it prints `todo serving`, stopped with SIGINT (must exit 0)"),
    (r"cargo run -p todo --example todo_client", RUN,
     "ZAP/TCP against the todo server started above; output checked"),
    (r"curl -s -H Content-Type: application/json http://127\.0\.0\.1:8000/rpc -d .*", RUN,
     "JSON-RPC against the todo server, after the client above; output checked"),
    # The command line.
    (r"cargo install --locked --path zapc", RUN,
     "installs zapc into the scratch CARGO_INSTALL_ROOT, first on the PATH of what follows"),
    (r"zapc call --schema schemas/eth\.zap 127\.0\.0\.1:9999 Eth\.chainId", RUN_SCRATCH,
     "the installed zapc against the eth-rpc server started above (still running)"),
    (r"zapc (generate|check|layout|fmt|openrpc|export) .*", RUN_SCRATCH,
     "in a scratch copy of schemas/: `generate` writes src/generated/ and `export` "
     "shared/ into the working directory"),
]

# What each SERVE command prints once it is ready, and the fixed ports it listens on.
SERVERS = {
    "cargo run -p eth-rpc": ("eth-rpc serving", (8545, 9999)),
    "cargo run -p todo": ("todo serving", (8000, 9000)),
}
# Bounds on a command's life, so a hung command fails the run instead of hanging CI.
# Generous: the first `cargo run --release` builds the example from scratch.
COMMAND_TIMEOUT = 30 * 60
STOP_TIMEOUT = 60


class Failure(Exception):
    pass


def sh_blocks(readme):
    """The ```sh blocks of `readme`: (first line number, [lines])."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(readme.splitlines(), 1):
        fence = line.strip()
        if current is None and fence == "```sh":
            current, start = [], number + 1
        elif current is not None and fence.startswith("```"):
            blocks.append((start, current))
            current = None
        elif current is not None:
            current.append(line)
    if current is not None:
        raise Failure(f"README.md:{start}: an ```sh block is not closed")
    return blocks


def commands(block_start, lines):
    """The commands of one block: (line number, text for bash, its words without the
    comment, expected output lines)."""
    out = []
    i = 0
    while i < len(lines):
        number = block_start + i
        line = lines[i].rstrip()
        i += 1
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            continue  # a comment of its own, not right after a command
        while line.endswith("\\") and i < len(lines):
            line = line[:-1] + " " + lines[i].strip()
            i += 1
        expected = []
        while i < len(lines) and lines[i].lstrip().startswith("#"):
            comment = lines[i].lstrip()[1:]
            expected.append(comment[1:] if comment.startswith(" ") else comment)
            i += 1
        try:
            words = shlex.split(line, comments=True)
        except ValueError as e:
            raise Failure(f"README.md:{number}: cannot split `{line}`: {e}")
        out.append((number, line, words, expected))
    return out


def rule_for(normalised):
    for index, (pattern, action, why) in enumerate(RULES):
        if re.fullmatch(pattern, normalised):
            return index, action, why
    return None


def matches(expected, actual):
    """Whether `actual` (a line of output) is `expected` with `…` as a wildcard."""
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual) is not None


def check_output(number, expected, output):
    if not expected:
        return
    actual = output.rstrip("\n").split("\n")
    if len(actual) != len(expected) or not all(map(matches, expected, actual)):
        raise Failure(
            f"README.md:{number}: the output differs from the README's\n"
            + "--- README\n" + "\n".join(expected) + "\n--- output\n" + "\n".join(actual)
        )


def run(number, text, cwd, env, expected):
    try:
        done = subprocess.run(
            ["bash", "-c", "set -eo pipefail\n" + text], cwd=cwd, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=COMMAND_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        raise Failure(f"README.md:{number}: still running after {COMMAND_TIMEOUT} s: {text}")
    if done.returncode != 0:
        raise Failure(
            f"README.md:{number}: exit status {done.returncode}: {text}\n"
            f"--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
        )
    check_output(number, expected, done.stdout)


def port_in_use(port):
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Server:
    """A README command that serves until Ctrl-C, in its own process group."""

    def __init__(self, number, text, normalised, cwd, env):
        self.ready_text, ports = SERVERS[normalised]
        busy = [p for p in ports if port_in_use(p)]
        if busy:
            raise Failure(
                f"README.md:{number}: something already listens on 127.0.0.1:{busy[0]}; "
                "the README's server uses fixed ports, stop the other one first"
            )
        self.number, self.text, self.log = number, text, []
        self.ready = threading.Event()
        self.proc = subprocess.Popen(
            ["bash", "-c", "exec " + text], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        # Wait for the server's own "serving" line, or its end: no guessing with sleeps.
        self.ready.wait(COMMAND_TIMEOUT)
        if self.proc.poll() is not None or self.ready_text not in "".join(self.log):
            self.stop(check=False)
            raise Failure(
                f"README.md:{number}: `{text}` did not print `{self.ready_text}`\n"
                + "".join(self.log)
            )

    def _read(self):
        for line in self.proc.stdout:
            self.log.append(line)
            if self.ready_text in line:
                self.ready.set()
        self.ready.set()  # ended: wake the waiter, which sees the exit

    def stop(self, check=True):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)  # Ctrl-C, as the README says
            try:
                self.proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                raise Failure(f"README.md:{self.number}: Ctrl-C did not stop `{self.text}`")
        if check and self.proc.returncode != 0:
            raise Failure(
                f"README.md:{self.number}: `{self.text}` exited {self.proc.returncode} "
                "after Ctrl-C\n" + "".join(self.log[-20:])
            )


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    readme_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "README.md")
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    for tool in ("bash", "cargo", "curl"):
        if shutil.which(tool) is None:
            raise Failure(f"`{tool}` is not on the PATH")

    plan = []
    for start, lines in sh_blocks(readme):
        for number, text, words, expected in commands(start, lines):
            normalised = " ".join(words)
            found = rule_for(normalised)
            if found is None:
                raise Failure(
                    f"README.md:{number}: no rule in .ci/readme_commands.py covers "
                    f"`{normalised}`: add one (run it, or skip it and say why)"
                )
            plan.append((number, text, words, expected) + found)
    unused = set(range(len(RULES))) - {p[4] for p in plan}
    if unused:
        raise Failure(
            "rules that match no README command (stale, remove them): "
            + ", ".join(RULES[i][0] for i in sorted(unused))
        )

    scratch = tempfile.mkdtemp(prefix="readme-commands-")
    servers = []
    try:
        shutil.copytree(os.path.join(root, "schemas"), os.path.join(scratch, "schemas"))
        install_root = os.path.join(scratch, "cargo-install")
        env = dict(os.environ)
        env["CARGO_INSTALL_ROOT"] = install_root
        env["PATH"] = os.path.join(install_root, "bin") + os.pathsep + env["PATH"]
        for number, text, words, expected, _, action, why in plan:
            normalised = " ".join(words)
            began = time.monotonic()
            if action == SKIP:
                print(f"README.md:{number} [skip] {normalised}\n    ({why})", flush=True)
                continue
            print(f"README.md:{number} [{action}] {normalised}", flush=True)
            if action == SERVE:
                servers.append(Server(number, text, normalised, root, env))
            elif action == RUN:
                run(number, text, root, env, expected)
            elif action == RUN_SCRATCH:
                run(number, text, scratch, env, expected)
            elif action == BUILD_ONLY:
                at = words.index("--") if "--" in words else len(words)
                built = shlex.join(words[:at] + ["--no-run"] + words[at:])
                run(number, built, root, env, [])
            print(f"    ok in {time.monotonic() - began:.0f} s", flush=True)
        while servers:
            servers.pop().stop()
    finally:
        for server in servers:
            server.stop(check=False)
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"README: {len(plan)} commands, all as the rules say")


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print(f"FAILED: {e}", file=sys.stderr)
        sys.exit(1)
