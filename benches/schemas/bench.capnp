# Both records of the codec benches as Cap'n Proto, for capnp/capnpc, and the balance call
# as a capnp-rpc interface. Cap'n Proto has no fixed-size byte arrays: addresses and hashes
# are Data.
@0xc4f1d5a8e0b7a213;

struct BalanceRequest {
  id @0 :UInt64;
  block @1 :UInt64;
  account @2 :Data;
}

struct BalanceResponse {
  id @0 :UInt64;
  balance @1 :UInt64;
  nonce @2 :UInt64;
  blockHash @3 :Data;
}

struct Log {
  blockNumber @0 :UInt64;
  transactionIndex @1 :UInt32;
  logIndex @2 :UInt32;
  topics @3 :List(Data);
  data @4 :Data;
  address @5 :Data;
  transactionHash @6 :Data;
}

struct Logs {
  logs @0 :List(Log);
}

# The call of the end-to-end comparison (benches/rpc_peers_rounds.sh): capnp-rpc over TCP.
interface Eth {
  getBalance @0 (request :BalanceRequest) -> (response :BalanceResponse);
}
