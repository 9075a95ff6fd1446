"""The Python peer's capability runtime (zap-proto[crypto] 1.4.1), driven by the Rust
interop tests in cap_interop_python.rs.

Reads one JSON request on stdin, writes one JSON answer on stdout. Byte strings travel
as lowercase hex. Operations:

mint      {"scheme", "now", "target", ["root_mldsa": {"pk", "sk"}]}
          A root signer (or the given ML-DSA-65 key pair) issues a root cap to a
          delegate key of the same scheme (PERM_ATTENUATE | 0b111); the delegate attenuates
          it to an end holder (0b011); the root also issues a cap with one caveat.
          Answers every cap with the id and canonical bytes Python computes for it.
issue     {"seed", "kind", "target", "holder", "permissions", "parent", "issued_at",
           "expires_at", "caveats": [[kind, value hex], ...]}
          One Ed25519 cap from a fixed seed (deterministic): for byte-identity checks.
verify    {"keys": [pub hex, ...], "leaf", "chain": [hex, ...], "op_bits", "target",
           "holder", "now"}
          Verifier.verify_chain with an issuer resolver over "keys".
describe  {"caps": [hex, ...]}  id and canonical bytes of each cap.
"""

import hashlib
import json
import sys

from zap import cap as zc

SIGNERS = {
    "ed25519": zc.Ed25519Signer,
    "mldsa65": zc.MLDSA65Signer,
    "secp256k1": zc.Secp256k1Signer,
}

KIND_IAM_SESSION = 0x01
END_HOLDER = hashlib.sha256(b"end holder").digest()


def describe(c):
    return {
        "hex": c.raw.hex(),
        "id": c.id().hex(),
        "canonical": c.canonical_bytes().hex(),
    }


def mint(req):
    scheme = req["scheme"]
    now = req["now"]
    target = bytes.fromhex(req["target"])
    if "root_mldsa" in req:
        k = req["root_mldsa"]
        root = zc.MLDSA65Signer(bytes.fromhex(k["pk"]), bytes.fromhex(k["sk"]))
    else:
        root = SIGNERS[scheme].generate()
    delegate = SIGNERS[scheme].generate()
    root_cap = zc.issue(
        zc.Issuance(
            kind=KIND_IAM_SESSION,
            target=target,
            holder=delegate.public(),
            permissions=zc.PERM_ATTENUATE | 0b111,
            issued_at=now - 10,
            expires_at=now + 3600,
        ),
        root,
    )
    child = zc.attenuate(root_cap, END_HOLDER, 0b011, None, now + 1800, delegate)
    caveated = zc.issue(
        zc.Issuance(
            kind=KIND_IAM_SESSION,
            target=target,
            holder=END_HOLDER,
            permissions=0b1,
            issued_at=now - 10,
            expires_at=now + 3600,
            caveats=[zc.Caveat(kind=int(zc.CaveatKind.MAX_AMOUNT), value=b"\x10\x27\x00")],
        ),
        root,
    )
    return {
        "root_pub": root.public_key_bytes().hex(),
        "root_id": root.public().hex(),
        "delegate_pub": delegate.public_key_bytes().hex(),
        "delegate_id": delegate.public().hex(),
        "end_holder": END_HOLDER.hex(),
        "root": describe(root_cap),
        "child": describe(child),
        "caveated": describe(caveated),
    }


def issue_fixed(req):
    signer = zc.Ed25519Signer.from_seed(bytes.fromhex(req["seed"]))
    c = zc.issue(
        zc.Issuance(
            kind=req["kind"],
            target=bytes.fromhex(req["target"]),
            holder=bytes.fromhex(req["holder"]),
            permissions=req["permissions"],
            parent=bytes.fromhex(req["parent"]),
            issued_at=req["issued_at"],
            expires_at=req["expires_at"],
            caveats=[zc.Caveat(kind=k, value=bytes.fromhex(v)) for k, v in req["caveats"]],
        ),
        signer,
    )
    return {"pub": signer.public_key_bytes().hex(), **describe(c)}


def verify(req):
    keys = {hashlib.sha256(bytes.fromhex(k)).digest(): bytes.fromhex(k) for k in req["keys"]}

    def issuer_key(h):
        return keys.get(bytes(h), b"")

    v = zc.Verifier(issuer_key=issuer_key)
    leaf = zc.wrap(bytes.fromhex(req["leaf"]))
    chain = [zc.wrap(bytes.fromhex(h)) for h in req["chain"]]
    try:
        v.verify_chain(
            leaf,
            chain,
            req["op_bits"],
            bytes.fromhex(req["target"]),
            bytes.fromhex(req["holder"]),
            req["now"],
        )
    except zc.CapError as e:
        return {"ok": False, "error": type(e).__name__, "detail": str(e)}
    return {"ok": True}


def main():
    req = json.load(sys.stdin)
    op = req["op"]
    if op == "mint":
        out = mint(req)
    elif op == "issue":
        out = issue_fixed(req)
    elif op == "verify":
        out = verify(req)
    elif op == "describe":
        out = {"caps": [describe(zc.wrap(bytes.fromhex(h))) for h in req["caps"]]}
    else:
        raise SystemExit(f"unknown op {op!r}")
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
