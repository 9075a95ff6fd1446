// Watch blocks through ethers' WebSocketProvider (which subscribes to newHeads), then
// read a balance over the same socket.
//
// Usage: node ethers_ws.mjs WS_URL ADDRESS
// Prints one JSON object: blocks (two block numbers), balance (a decimal string).

import { WebSocketProvider } from "ethers";

const [url, address] = process.argv.slice(-2);
const provider = new WebSocketProvider(url);
try {
  const blocks = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`fewer than two blocks within 20 s: ${blocks}`)),
      20000,
    );
    provider.on("block", (number) => {
      blocks.push(number);
      if (blocks.length >= 2) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const balance = await provider.getBalance(address);
  console.log(JSON.stringify({ blocks, balance: balance.toString() }));
} finally {
  await provider.destroy();
}
