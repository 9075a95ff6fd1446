# Subscribe to newHeads with web3.py's AsyncWeb3 over WebSocket (WebSocketProvider, a
# ws:// URL) or IPC (AsyncIPCProvider, ipc:PATH), wait for two heads, read a balance
# over the same connection, then unsubscribe.
#
# Usage: python3 web3_ws.py URL ADDRESS
# Prints one JSON object: heads (two block numbers), balance, chain_id, unsubscribed.

import asyncio
import json
import sys

from web3 import AsyncIPCProvider, AsyncWeb3, WebSocketProvider


async def main(url, address):
    if url.startswith("ipc:"):
        provider = AsyncIPCProvider(url[len("ipc:"):])
    else:
        provider = WebSocketProvider(url)
    async with AsyncWeb3(provider) as w3:
        subscription = await w3.eth.subscribe("newHeads")
        heads = []
        async for payload in w3.socket.process_subscriptions():
            heads.append(int(payload["result"]["number"]))
            if len(heads) >= 2:
                break
        account = AsyncWeb3.to_checksum_address(address)
        answer = {
            "subscription": subscription,
            "heads": heads,
            "balance": await w3.eth.get_balance(account),
            "chain_id": await w3.eth.chain_id,
            "unsubscribed": await w3.eth.unsubscribe(subscription),
        }
    print(json.dumps(answer))


asyncio.run(asyncio.wait_for(main(sys.argv[1], sys.argv[2]), timeout=30))
