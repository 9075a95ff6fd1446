// The fan-out baseline: a Node `ws` server that answers eth_subscribe and, every
// BLOCK_MS milliseconds, sends each subscriber an eth_subscription notification with a
// head shaped like eth-rpc's (number, timestamp, hash, parentHash). The notification is
// serialized once per head and sent to every subscriber.
//
// Usage: node ws_fanout.mjs PORT BLOCK_MS   (prints "ready PORT" when listening)

import { WebSocketServer } from "ws";

const [port, blockMs] = process.argv.slice(-2).map(Number);
const server = new WebSocketServer({ host: "127.0.0.1", port });
const subscribers = new Set();
let number = 68943;
const hash = (n) => "0x" + n.toString(16).padStart(64, "0");

server.on("connection", (socket) => {
  socket.on("message", (data) => {
    const request = JSON.parse(data.toString());
    if (request.method === "eth_subscribe") {
      subscribers.add(socket);
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: "0x1" }));
    }
  });
  socket.on("close", () => subscribers.delete(socket));
});

setInterval(() => {
  number += 1;
  const text = JSON.stringify({
    jsonrpc: "2.0",
    method: "eth_subscription",
    params: {
      subscription: "0x1",
      result: {
        number: "0x" + number.toString(16),
        timestamp: "0x" + (1700000000 + number).toString(16),
        hash: hash(number),
        parentHash: hash(number - 1),
      },
    },
  });
  for (const socket of subscribers) socket.send(text);
}, blockMs);

server.on("listening", () => console.log(`ready ${server.address().port}`));
