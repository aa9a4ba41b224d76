#!/usr/bin/env node
// Validators generated at build time (Ajv standalone code, https://ajv.js.org/standalone.html), so
// that a process does not compile the schemas it knows before it starts: compiling is most of what a
// validator costs (the profile schema ~80 ms, every process at start; ~0.4 s CPU per test suite).
//
//   node scripts/precompile-validators.mjs
//     (contracts' build) every schema of the catalog's operations (params and query with the input
//     options, bodies and responses with the body options), of the events, and every TypeBox schema
//     the package exports (alone or in an exported table), into contracts/dist/precompiled.
//   node ../../contracts/scripts/precompile-validators.mjs --manifest dist/config.js --out dist/precompiled
//     (another package's build) the schemas listed by the module's `PRECOMPILED_SCHEMAS` export:
//     `[{ schema, options }]`, options as `ValidatorOptions` of @nap/contracts.
//
// One file per validator, `<key>.js`, named by `validatorKey(schema, options)` (a hash of the schema's
// canonical JSON, the options and the versions of Ajv and ajv-formats), and `index.json`, the list of
// keys: a process uses a file only for a schema exactly as it was at build time (precompiledValidator).
// `ids.json` names the body options' validators of schemas with an `$id` by it, for code of the same
// build that must not load the schemas (precompiledValidatorById).
// A schema that does not compile is left out with a warning: it fails at run time as it would without this.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const contracts = require('../dist/index.js');
const Ajv = require('ajv').default;
const addFormats = require('ajv-formats').default;
const standaloneCode = require('ajv/dist/standalone').default;
const { Kind } = require('@sinclair/typebox');

const { values: args } = parseArgs({ options: { manifest: { type: 'string' }, out: { type: 'string' } } });
const started = performance.now();

/** @returns {Iterable<{ schema: object, options: import('../dist/index').ValidatorOptions }>} */
function* contractsSchemas() {
  const { BODY_VALIDATOR_OPTIONS: body, INPUT_VALIDATOR_OPTIONS: input } = contracts;
  for (const op of contracts.CATALOG) {
    const parts = [
      [op.request.params, input],
      [op.request.query, input],
      [op.request.body, body],
      [op.response.body, body],
    ];
    for (const [schema, options] of parts) if (schema !== undefined) yield { schema, options };
  }
  for (const event of contracts.EVENTS) yield { schema: event.schema, options: body };
  // exported schemas, and those of exported tables of schemas (SERVICE_SETTINGS_SCHEMAS)
  const isSchema = (value) => value !== null && typeof value === 'object' && Kind in value;
  for (const value of Object.values(contracts)) {
    if (isSchema(value)) yield { schema: value, options: body };
    else if (value !== null && typeof value === 'object') {
      for (const member of Object.values(value)) if (isSchema(member)) yield { schema: member, options: body };
    }
  }
}

const schemas = args.manifest === undefined ? contractsSchemas() : require(path.resolve(args.manifest)).PRECOMPILED_SCHEMAS;
const out = path.resolve(args.out ?? fileURLToPath(new URL('../dist/precompiled', import.meta.url)));

/** One Ajv instance per option set, as a process has (a schema that will not share one gets its own). */
const instances = new Map();
function newAjv(options) {
  // source kept for standaloneCode; ajv-formats sets code.formats to require its formats by name
  const ajv = new Ajv({ ...options.ajv, code: { source: true } });
  if (options.formats) addFormats(ajv);
  return ajv;
}
function compile(schema, options) {
  let ajv = instances.get(options);
  if (ajv === undefined) instances.set(options, (ajv = newAjv(options)));
  try {
    return { ajv, validate: ajv.compile(schema) };
  } catch {
    const own = newAjv(options);
    return { ajv: own, validate: own.compile(schema) };
  }
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const keys = new Set();
/** `$id` → key of the body options' validators; null for an `$id` two different schemas carry (named by neither). */
const ids = new Map();
let bytes = 0;
for (const { schema, options } of schemas) {
  const key = contracts.validatorKey(schema, options);
  if (typeof schema.$id === 'string' && options === contracts.BODY_VALIDATOR_OPTIONS) {
    const named = ids.get(schema.$id);
    ids.set(schema.$id, named === undefined || named === key ? key : null);
  }
  if (keys.has(key)) continue;
  let code;
  try {
    const { ajv, validate } = compile(schema, options);
    code = standaloneCode(ajv, validate);
  } catch (e) {
    console.warn(`precompile-validators: left out ${schema.$id ?? 'a schema without $id'}: ${e.message}`);
    continue;
  }
  writeFileSync(path.join(out, `${key}.js`), code);
  keys.add(key);
  bytes += code.length;
}
writeFileSync(path.join(out, contracts.PRECOMPILED_INDEX_FILE), JSON.stringify([...keys]));
const named = Object.fromEntries([...ids].filter(([, key]) => key !== null && keys.has(key)));
writeFileSync(path.join(out, contracts.PRECOMPILED_IDS_FILE), JSON.stringify(named));
const ms = (performance.now() - started).toFixed(0);
console.log(
  `precompile-validators: ${keys.size} validators (${(bytes / 1e6).toFixed(1)} MB) in ${path.relative(process.cwd(), out)}, ${ms} ms`,
);
