"""Call eth_getBalance on a ZAP/TCP server with the real Python runtime (zap-proto).

Usage: eth_call.py HOST PORT < calls.json
calls.json: [{"method": 1, "id": 1, "block": 68943, "account": "0x..." | null,
              "payload": "hex" (optional: sent as is instead of a BalanceRequest)}, ...]
Every call is built with zap-proto's own code (wire.Builder for the BalanceRequest,
pipeline.build_request for the envelope), framed [len u32 LE][dir u8=1][envelope], and
all are written before any answer is read (pipelined). Answers are parsed with
pipeline.parse_response and wire.parse, and printed as JSON in PromiseID order.
"""

import json
import socket
import struct
import sys

from zap import pipeline, wire


def balance_request(call):
    b = wire.Builder()
    ob = b.start_object(36)
    ob.set_uint64(0, call["id"])
    ob.set_uint64(8, call["block"])
    ob.set_bytes_fixed(16, bytes.fromhex(call["account"][2:]))
    ob.finish_as_root()
    return b.finish()


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("server closed the connection")
        buf += chunk
    return bytes(buf)


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    calls = json.load(sys.stdin)
    out = bytearray()
    for i, call in enumerate(calls):
        payload = bytes.fromhex(call["payload"]) if "payload" in call else balance_request(call)
        env = pipeline.build_request(pipeline.Call(method=call["method"], promise_id=i + 1, payload=payload))
        out += struct.pack("<IB", len(env) + 1, 1) + env
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(out)
        answers = {}
        for _ in calls:
            length, direction = struct.unpack("<IB", recv_exact(sock, 5))
            assert direction == 2, f"answer frame has direction {direction}"
            resp = pipeline.parse_response(recv_exact(sock, length - 1))
            answer = {"status": resp.status}
            if resp.status == 200:
                r = wire.parse(resp.body).root()
                answer.update(id=r.uint64(0), balance=r.uint64(8), nonce=r.uint64(16),
                              blockHash="0x" + r.bytes_fixed(24, 32).hex())
            else:
                answer["error"] = resp.body.decode("utf-8", "replace")
            answers[resp.promise_id] = answer
    json.dump([answers[i + 1] for i in range(len(calls))], sys.stdout)


if __name__ == "__main__":
    main()
