// Validates OpenRPC documents against the OpenRPC meta-schema (@open-rpc/meta-schema,
// whose JSON Schemas are @json-schema-tools/meta-schema) with ajv, and checks values
// against schemas inside them.
//
// stdin: [{ "name": ..., "document": {...}, "checks": [{ "pointer": "/methods/0/...",
//          "value": ..., "valid": true|false }] }]
// stdout: one line per problem; exit status 1 if there is any.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(process.cwd() + "/");
const Ajv = require("ajv").default;
const openrpcMeta = require("@open-rpc/meta-schema").default;
const jsonSchemaMeta = require("@json-schema-tools/meta-schema").default;

// Both meta-schemas name themselves as their own $schema, which ajv does not know: drop
// it (ajv then reads them as draft-07, which they are written in).
const bare = ({ $schema, ...rest }) => rest;
// The formats the meta-schemas use: patterns must be regular expressions; URIs are not
// checked.
const regex = (s) => {
  try {
    new RegExp(s, "u");
    return true;
  } catch {
    return false;
  }
};
const formats = { regex, uri: true, "uri-reference": true };
const meta = new Ajv({ strict: false, allErrors: true, formats });
meta.addSchema(bare(jsonSchemaMeta), "https://meta.json-schema.tools");
const validDocument = meta.compile(bare(openrpcMeta));

const cases = JSON.parse(readFileSync(0, "utf8"));
const problems = [];
for (const { name, document, checks = [] } of cases) {
  if (!validDocument(document)) {
    for (const e of validDocument.errors) {
      problems.push(`${name}: ${e.instancePath || "/"} ${e.message} (${JSON.stringify(e.params)})`);
    }
    continue;
  }
  // Every schema of the document compiles, and $refs resolve within the document.
  const ajv = new Ajv({ strict: false, allErrors: true, formats });
  ajv.addSchema(document, "https://document.invalid/");
  for (const { pointer, value, valid } of checks) {
    let validate;
    try {
      validate = ajv.compile({ $ref: `https://document.invalid/#${pointer}` });
    } catch (e) {
      problems.push(`${name}: ${pointer} does not compile: ${e.message}`);
      continue;
    }
    if (validate(value) !== valid) {
      problems.push(
        `${name}: ${pointer} ${valid ? "refuses" : "accepts"} ${JSON.stringify(value)}` +
          (validate.errors ? `: ${ajv.errorsText(validate.errors)}` : ""),
      );
    }
  }
}
for (const p of problems) console.log(p);
process.exit(problems.length ? 1 : 0);
