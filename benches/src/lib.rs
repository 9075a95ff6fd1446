//! Shared fixtures for the benchmarks: the `eth_getBalance` records of the shared test
//! vectors, so every bench works on the same bytes the interop tests check.

use serde_json::Value;

const FLAT: &str = include_str!("../../zap-runtime/tests/data/flat.json");

/// The wire bytes of the flat vector called `name` (e.g. `eth_request_fixed`).
pub fn flat_vector(name: &str) -> Vec<u8> {
    let doc: Value = serde_json::from_str(FLAT).expect("flat.json is valid JSON");
    let v = doc["vectors"]
        .as_array()
        .and_then(|vs| vs.iter().find(|v| v["name"] == name))
        .unwrap_or_else(|| panic!("no flat vector named {name}"));
    hex::decode(v["hex"].as_str().unwrap_or_default()).expect("vector hex")
}

/// The `eth_getBalance` values of the vectors.
pub mod eth {
    pub const ID: u64 = 1;
    pub const BLOCK: u64 = 68943;
    pub const BALANCE: u64 = 1_000_000_000_000_000_000;
    pub const NONCE: u64 = 42;
    pub const ACCOUNT: [u8; 20] = [
        0xde, 0xad, 0xbe, 0xef, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa,
        0xbb, 0xcc, 0xdd, 0xee, 0xff,
    ];
    pub const BLOCK_HASH: [u8; 32] = [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32,
        0x10, 0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2,
        0xe1, 0xf0,
    ];
}
