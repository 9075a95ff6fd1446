// Watch blocks through ethers' WebSocketProvider (a ws:// URL) or IpcSocketProvider
// (ipc:PATH), which subscribe to newHeads, then read a balance over the same socket.
//
// Usage: node ethers_ws.mjs URL ADDRESS
// Prints one JSON object: blocks (two block numbers), balance (a decimal string).

import { IpcSocketProvider, WebSocketProvider } from "ethers";

const [url, address] = process.argv.slice(-2);
const provider = url.startsWith("ipc:")
  ? new IpcSocketProvider(url.slice("ipc:".length))
  : new WebSocketProvider(url);
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
