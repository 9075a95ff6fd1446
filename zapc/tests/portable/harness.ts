// The TypeScript side of zapc's portable-schema round trips (zapc/tests/portable.rs):
// code that the TypeScript zapgen of @zap-proto/zap generated from `zapc export` output
// reads a message zapc wrote, prints every field, and builds the message again with the
// generated builder. Compiled by tsc (strict) with the generated files, run by node:
//
//   node harness.js STRUCT HEX
//
// prints the same lines as harness.go: one `Field=value` per field, then `rebuilt=HEX`.
import * as eth from "./gen/eth/eth_zap.js";
import * as kitchen from "./gen/kitchen/kitchen_zap.js";

// Node's globals, declared here so the check needs no @types/node.
declare const process: { argv: string[]; exit(code: number): never };

const hex = (b: Uint8Array): string =>
  Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s: string): Uint8Array =>
  new Uint8Array((s.match(/../g) ?? []).map((x) => parseInt(x, 16)));
const h = (b: Uint8Array): string => "0x" + hex(b);
const t = (s: string): string => h(new TextEncoder().encode(s));
const bits32 = (x: number): string => {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setFloat32(0, x, true);
  return "0x" + dv.getUint32(0, true).toString(16).padStart(8, "0");
};
const bits64 = (x: number): string => {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x, true);
  return "0x" + dv.getBigUint64(0, true).toString(16).padStart(16, "0");
};
const leaf = (v: kitchen.Leaf): string => `{Tag=${v.tag};Note=${t(v.note)}}`;
const leafInput = (v: kitchen.Leaf): kitchen.LeafInput => ({ tag: v.tag, note: v.note });

const [name, text] = process.argv.slice(2);
if (name === undefined || text === undefined) {
  console.error("usage: harness STRUCT HEX");
  process.exit(2);
}
const msg = unhex(text);
const lines: string[] = [];
let rebuilt: Uint8Array;
switch (name) {
  case "BalanceRequest": {
    const v = eth.BalanceRequest.wrap(msg);
    lines.push(`Id=${v.id}`, `Block=${v.block}`, `Account=${h(v.account)}`);
    rebuilt = eth.newBalanceRequest({ id: v.id, block: v.block, account: v.account });
    break;
  }
  case "BalanceResponse": {
    const v = eth.BalanceResponse.wrap(msg);
    lines.push(`Id=${v.id}`, `Balance=${v.balance}`, `Nonce=${v.nonce}`, `BlockHash=${h(v.blockHash)}`);
    rebuilt = eth.newBalanceResponse({
      id: v.id, balance: v.balance, nonce: v.nonce, blockHash: v.blockHash,
    });
    break;
  }
  case "ChainIdResponse": {
    const v = eth.ChainIdResponse.wrap(msg);
    lines.push(`ChainId=${v.chainId}`);
    rebuilt = eth.newChainIdResponse({ chainId: v.chainId });
    break;
  }
  case "BlockNumberResponse": {
    const v = eth.BlockNumberResponse.wrap(msg);
    lines.push(`Number=${v.number}`);
    rebuilt = eth.newBlockNumberResponse({ number: v.number });
    break;
  }
  case "VersionResponse": {
    const v = eth.VersionResponse.wrap(msg);
    lines.push(`Version=${t(v.version)}`);
    rebuilt = eth.newVersionResponse({ version: v.version });
    break;
  }
  case "BlockHeader": {
    const v = eth.BlockHeader.wrap(msg);
    lines.push(`Number=${v.number}`, `Timestamp=${v.timestamp}`, `Hash=${h(v.hash)}`, `ParentHash=${h(v.parentHash)}`);
    rebuilt = eth.newBlockHeader({
      number: v.number, timestamp: v.timestamp, hash: v.hash, parentHash: v.parentHash,
    });
    break;
  }
  case "HeadsRequest": {
    const v = eth.HeadsRequest.wrap(msg);
    lines.push(`Count=${v.count}`);
    rebuilt = eth.newHeadsRequest({ count: v.count });
    break;
  }
  case "Leaf": {
    const v = kitchen.Leaf.wrap(msg);
    lines.push(`Tag=${v.tag}`, `Note=${t(v.note)}`);
    rebuilt = kitchen.newLeaf(leafInput(v));
    break;
  }
  case "Kitchen": {
    const v = kitchen.Kitchen.wrap(msg);
    lines.push(
      `Flag=${v.flag}`, `A8=${v.a8}`, `A16=${v.a16}`, `A32=${v.a32}`, `A64=${v.a64}`,
      `S8=${v.s8}`, `S16=${v.s16}`, `S32=${v.s32}`, `S64=${v.s64}`,
      `F32=${bits32(v.f32Field)}`, `F64=${bits64(v.f64Field)}`,
      `Name=${t(v.name)}`, `Blob=${h(v.blob)}`, `Id=${h(v.id)}`,
    );
    // A framed list of structs: each element is a whole message.
    const items = v.items;
    const shown: string[] = [];
    const itemBytes: Uint8Array[] = [];
    for (let i = 0; i < items.len(); i++) {
      const elem = kitchen.Leaf.wrap(items.bytesAt(i));
      shown.push(leaf(elem));
      itemBytes.push(kitchen.newLeaf(leafInput(elem)));
    }
    lines.push(`Items=[${shown.join(",")}]`, `Inner=${leaf(v.inner)}`);
    // A strided list of u32: element i at start + 4*i.
    const nums = v.nums;
    const numbers: number[] = [];
    const numBytes: Uint8Array[] = [];
    for (let i = 0; i < nums.len(); i++) {
      numbers.push(nums.u32(i));
      const one = new Uint8Array(4);
      new DataView(one.buffer).setUint32(0, nums.u32(i), true);
      numBytes.push(one);
    }
    lines.push(`Nums=[${numbers.join(",")}]`);
    rebuilt = kitchen.newKitchen({
      flag: v.flag, a8: v.a8, a16: v.a16, a32: v.a32, a64: v.a64,
      s8: v.s8, s16: v.s16, s32: v.s32, s64: v.s64, f32Field: v.f32Field, f64Field: v.f64Field,
      name: v.name, blob: v.blob, id: v.id, items: itemBytes,
      inner: kitchen.newLeaf(leafInput(v.inner)), nums: numBytes,
    });
    break;
  }
  default:
    console.error(`unknown struct ${name}`);
    process.exit(2);
}
for (const line of lines) console.log(line);
console.log(`rebuilt=${hex(rebuilt)}`);
