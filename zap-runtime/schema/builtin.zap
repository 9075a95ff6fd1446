# The messages of the methods every zap-runtime server answers beside its service's own
# (zap_runtime::builtin): reflection, which says what the server serves, and health,
# which says whether it still takes work. Their ordinals are reserved in every
# interface: 0xFFFFFF01 Describe (no request, answers a Description), 0xFFFFFF02
# Check (a HealthRequest, answers a HealthResponse) and 0xFFFFFF03 Watch (a server
# stream opened with a HealthRequest, sending a HealthResponse now and at each change).
package zap

# What a server serves: every service, with its methods and its schema.
struct Description
    Runtime   text                        # the runtime and its version: "zap-runtime 0.1.0"
    Services  list<ServiceDescription>

# One service (a schema interface).
struct ServiceDescription
    Name        text                      # the interface name: "Eth"
    Package     text                      # the schema's package: "eth" (empty if none)
    SchemaHash  bytes                     # SHA-256 of the files, see docs/interop.md; empty without files
    Files       list<SchemaFile>          # the schema file first, then every file it imports
    Methods     list<MethodDescription>

# A schema file: its path (the first file's name, imports relative to its folder) and text.
struct SchemaFile
    Path  text
    Text  text

# One method.
struct MethodDescription
    Name         text                     # as in the schema: "getBalance"
    JsonName     text                     # its JSON-RPC name: "eth_getBalance"
    Request      text                     # the request struct's name (empty: none)
    Response     text                     # the response struct's name (empty: none)
    Permissions  u64                      # the capability bits a call needs (requires)
    Ordinal      u32
    Kind         u8                       # 0 call, 1 server stream, 2 client stream, 3 bidirectional

# The request of Check and the opening message of Watch: the service asked about, or
# empty for the whole server.
struct HealthRequest
    Service  text

# 0 unknown, 1 serving, 2 not serving (draining), 3 service unknown.
struct HealthResponse
    Status  u8
