"""Mint a ZAP capability with the Python runtime (zap-proto[crypto]) and call eth-rpc
with it over ZAP/TCP. The README's "Security" example; the capability test runs it.

Usage:
  cap_call.py mint SEED_HEX TARGET_HEX   -> {"trust": <trust-file line>, "cap": <hex>}
  cap_call.py call HOST PORT CAP_HEX ACCOUNT...
      -> [{"status": 200, "balance": ..., "nonce": ...} | {"status": 401, "error": "..."}]
"""

import json
import socket
import struct
import sys
import time

from zap import cap, pipeline, wire


def mint(seed_hex, target_hex):
    issuer = cap.Ed25519Signer.from_seed(bytes.fromhex(seed_hex))
    now = int(time.time())
    token = cap.issue(
        cap.Issuance(
            kind=cap.CapKind.IAM_SESSION,
            target=bytes.fromhex(target_hex),
            holder=bytes(32),           # bearer: the server does not check the holder
            permissions=0x1,            # eth.zap: getBalance requires 0x1
            issued_at=now - 60,
            expires_at=now + 3600,
        ),
        issuer,
    )
    trust = "ed25519 " + issuer.public_key_bytes().hex()
    return {"trust": trust, "cap": token.raw.hex()}


def balance_request(account_hex, i):
    b = wire.Builder()
    ob = b.start_object(36)
    ob.set_uint64(0, i)
    ob.set_uint64(8, 68943)
    ob.set_bytes_fixed(16, bytes.fromhex(account_hex[2:]))
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


def call(host, port, cap_hex, accounts):
    token = bytes.fromhex(cap_hex)
    answers = []
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        for i, account in enumerate(accounts):
            env = pipeline.build_request(pipeline.Call(
                method=1, promise_id=i + 1, cap=token,
                payload=balance_request(account, i + 1)))
            sock.sendall(struct.pack("<IB", len(env) + 1, 1) + env)
            length, _direction = struct.unpack("<IB", recv_exact(sock, 5))
            resp = pipeline.parse_response(recv_exact(sock, length - 1))
            if resp.status == 200:
                r = wire.parse(resp.body).root()
                answers.append({"status": 200, "balance": r.uint64(8), "nonce": r.uint64(16)})
            else:
                answers.append({"status": resp.status, "error": resp.body.decode()})
    return answers


if __name__ == "__main__":
    if sys.argv[1] == "mint":
        print(json.dumps(mint(sys.argv[2], sys.argv[3])))
    else:
        print(json.dumps(call(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])))
