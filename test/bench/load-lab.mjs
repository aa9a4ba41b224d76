// The lab (test/lab) is TypeScript; benchmarks compile it once with swc into node_modules/.cache so
// its own imports (ssh2, …) resolve from the workspace.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

/** The lab's exports (`startCliSimulator`, `startOpenApiPeer`, …). */
export function loadLab() {
  const { transformFileSync } = require('@swc/core');
  const out = path.join(root, 'node_modules/.cache/nap-bench-lab');
  mkdirSync(out, { recursive: true });
  for (const file of readdirSync(path.join(root, 'test/lab')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const { code } = transformFileSync(path.join(root, 'test/lab', file), {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    writeFileSync(path.join(out, file.replace(/\.ts$/, '.js')), code);
  }
  return require(path.join(out, 'index.js'));
}
