// Call eth_getBalance on a server through the real TypeScript runtime's ZapClient
// (@zap-proto/zap 1.6.0, node transport: NodeID handshake, then correlated frames).
//
// Usage: node --input-type=module --eval "$(cat eth_client.mjs)" -- HOST PORT < calls.json
// ZAP_CAP (optional, hex): the capability ZapClient.connect puts in every call.
// calls.json: [{"conn": 0, "method": 1, "id": 1, "block": 68943, "account": "0x..",
//               "promiseID": 9, "target": 7, "payload": "hex"}, ...]
// ("conn", "promiseID", "target" and "payload" optional.) Every BalanceRequest is built
// with the package's Builder; all calls are issued at once as concurrent promises over
// two connections (pipelined), and the answers are parsed with the package's reader.
// Prints one JSON answer per call, in input order; u64 values as decimal strings.

import { ZapClient } from "@zap-proto/zap/node";
import { Builder, Message, StructView } from "@zap-proto/zap";

class BalanceResponse extends StructView {
  get id() { return this.u64(0); }
  get balance() { return this.u64(8); }
  get nonce() { return this.u64(16); }
  get blockHash() { return this.bytesFixed(24, 32); }
}

const hex = (bytes) => "0x" + Buffer.from(bytes).toString("hex");
const unhex = (s) => Uint8Array.from(Buffer.from(s.replace(/^0x/, ""), "hex"));

function balanceRequest(call) {
  const b = new Builder();
  const ob = b.startObject(36);
  ob.setU64(0, BigInt(call.id));
  ob.setU64(8, BigInt(call.block));
  ob.setBytesFixed(16, unhex(call.account));
  ob.finishAsRoot();
  return b.finish();
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const [host, port] = process.argv.slice(-2);
const calls = await readStdin();
const clients = await Promise.all(
  [0, 1].map((i) =>
    ZapClient.connect({ host, port: Number(port), nodeID: `ts-interop-${i}` }, unhex(process.env.ZAP_CAP ?? "")),
  ),
);
const answers = await Promise.all(
  calls.map((call, i) => {
    const payload = call.payload !== undefined ? unhex(call.payload) : balanceRequest(call);
    const opts = { payload };
    if (call.promiseID !== undefined) opts.promiseID = call.promiseID;
    if (call.target !== undefined) opts.target = call.target;
    return clients[call.conn ?? i % 2].call(call.method, opts);
  }),
);
for (const c of clients) c.close();
const out = answers.map((resp) => {
  if (resp.status !== 200) {
    return { status: resp.status, promiseID: resp.promiseID, error: new TextDecoder().decode(resp.body) };
  }
  const root = Message.parse(resp.body).root();
  const r = new BalanceResponse(root.data, root.offset);
  return {
    status: resp.status,
    promiseID: resp.promiseID,
    id: r.id.toString(),
    balance: r.balance.toString(),
    nonce: r.nonce.toString(),
    blockHash: hex(r.blockHash),
  };
});
process.stdout.write(JSON.stringify(out));
