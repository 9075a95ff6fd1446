// Ask a JSON-RPC server through ethers' JsonRpcProvider: the network (eth_chainId),
// a balance, and the head block number.
//
// Usage: node --input-type=module --eval "$(cat ethers_client.mjs)" -- URL ADDRESS
// Prints one JSON object with decimal strings: chainId, balance, blockNumber.

import { JsonRpcProvider } from "ethers";

const [url, address] = process.argv.slice(-2);
const provider = new JsonRpcProvider(url);
try {
  const network = await provider.getNetwork();
  const balance = await provider.getBalance(address);
  const blockNumber = await provider.getBlockNumber();
  console.log(JSON.stringify({
    chainId: network.chainId.toString(),
    balance: balance.toString(),
    blockNumber: blockNumber.toString(),
  }));
} finally {
  provider.destroy();
}
