// A node-transport server written with the TypeScript runtime's own building blocks
// (@zap-proto/zap 1.6.0: Builder, Message/StructView, parseRequest, buildResponse),
// answering eth_getBalance (ordinal 1) from a ledger given on standard input. The
// package does not export its TCP framing helpers, so the framing is written here from
// the contract in docs/transports.md: a NodeID handshake each way (read the peer's,
// send ours), then [len u32][reqID u32][flag u32][envelope], answers with flag 2.
//
// Usage: node --input-type=module --eval "$(cat ledger_server.mjs)" -- NODE_ID < ledger.json
// ledger.json: {"accounts": {"0x..": ["balance", "nonce"]}, "blocks": {"68943": "0x.."}}
// Prints "listening PORT" once it listens on 127.0.0.1, then "peer NODEID" for every
// handshake it accepts. Runs until killed.

import { createServer } from "node:net";
import {
  Builder, Message, StructView, VERSION_2, parseRequest, buildResponse, Status,
} from "@zap-proto/zap";

class BalanceRequest extends StructView {
  get id() { return this.u64(0); }
  get block() { return this.u64(8); }
  get account() { return this.bytesFixed(16, 20); }
}

const hex = (bytes) => "0x" + Buffer.from(bytes).toString("hex");
const unhex = (s) => Uint8Array.from(Buffer.from(s.replace(/^0x/, ""), "hex"));

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const ledger = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const nodeID = process.argv[process.argv.length - 1];

function handshake(id) {
  const b = new Builder(128, VERSION_2);
  const ob = b.startObject(64);
  const bytes = new TextEncoder().encode(id);
  for (let i = 0; i < bytes.length; i++) ob.setU8(i, bytes[i]);
  ob.setU32(60, bytes.length);
  ob.finishAsRoot();
  return b.finish();
}

function peerID(message) {
  const root = Message.parse(message).root();
  const dv = new DataView(root.data.buffer, root.data.byteOffset, root.data.byteLength);
  const n = dv.getUint32(root.offset + 60, true);
  if (n === 0 || n > 60) throw new Error(`bad NodeID length ${n}`);
  return new TextDecoder().decode(root.data.subarray(root.offset, root.offset + n));
}

function getBalance(payload) {
  const root = Message.parse(payload).root();
  const req = new BalanceRequest(root.data, root.offset);
  const [balance, nonce] = ledger.accounts[hex(req.account)] ?? ["0", "0"];
  const b = new Builder();
  const ob = b.startObject(56);
  ob.setU64(0, req.id);
  ob.setU64(8, BigInt(balance));
  ob.setU64(16, BigInt(nonce));
  ob.setBytesFixed(24, unhex(ledger.blocks[req.block.toString()]));
  ob.finishAsRoot();
  return b.finish();
}

function answer(envelope) {
  const call = parseRequest(envelope);
  if (call.method !== 1) {
    const text = new TextEncoder().encode(`Eth has no method with ordinal ${call.method}`);
    return buildResponse(Status.NotFound, call.promiseID, text);
  }
  return buildResponse(Status.OK, call.promiseID, getBalance(call.payload));
}

function frame(reqID, flag, body) {
  const head = Buffer.alloc(12);
  head.writeUInt32LE(8 + body.byteLength, 0);
  head.writeUInt32LE(reqID, 4);
  head.writeUInt32LE(flag, 8);
  return Buffer.concat([head, body]);
}

const server = createServer((socket) => {
  let buf = Buffer.alloc(0);
  let greeted = false;
  socket.on("error", () => socket.destroy());
  socket.on("data", (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    const out = [];
    while (buf.length >= 4) {
      const len = buf.readUInt32LE(0);
      if (len > 10 * 1024 * 1024) return socket.destroy();
      if (buf.length < 4 + len) break;
      const body = Uint8Array.prototype.slice.call(buf, 4, 4 + len);
      buf = buf.subarray(4 + len);
      if (!greeted) {
        process.stdout.write(`peer ${peerID(body)}\n`);
        const ours = handshake(nodeID);
        const head = Buffer.alloc(4);
        head.writeUInt32LE(ours.byteLength, 0);
        out.push(head, Buffer.from(ours));
        greeted = true;
        continue;
      }
      const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
      const reqID = dv.getUint32(0, true);
      if (dv.getUint32(4, true) !== 1) return socket.destroy();
      out.push(frame(reqID, 2, answer(body.subarray(8))));
    }
    if (out.length > 0) socket.write(Buffer.concat(out));
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
