# Ask a JSON-RPC server what web3.py's users ask on connect, then balances, one by one
# and in a batch: over HTTP (an http:// URL) or IPC (ipc:PATH, web3.py's IPCProvider).
#
# Usage: python3 web3_client.py URL ADDRESS OTHER_ADDRESS
# Prints one JSON object: balance, balance_at_block, chain_id, block_number,
# client_version, net_version, batch (two balances), as decimal integers or strings.

import json
import sys

from web3 import Web3

url, address, other = sys.argv[1], sys.argv[2], sys.argv[3]
if url.startswith("ipc:"):
    w3 = Web3(Web3.IPCProvider(url[len("ipc:"):], timeout=10))
else:
    w3 = Web3(Web3.HTTPProvider(url, request_kwargs={"timeout": 10}))
first = Web3.to_checksum_address(address)
second = Web3.to_checksum_address(other)

answer = {
    "connected": w3.is_connected(),
    "balance": w3.eth.get_balance(first),
    "balance_at_block": w3.eth.get_balance(first, 68943),
    "chain_id": w3.eth.chain_id,
    "block_number": w3.eth.block_number,
    "client_version": w3.client_version,
    "net_version": w3.net.version,
}
with w3.batch_requests() as batch:
    batch.add(w3.eth.get_balance(first))
    batch.add(w3.eth.get_balance(second, "latest"))
    answer["batch"] = [int(balance) for balance in batch.execute()]
print(json.dumps(answer))
