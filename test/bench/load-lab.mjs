// The lab (@nap/lab, packages/lab) as built code, like every package the benchmarks use: `npm run
// build` first (`npm run bench` does).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

/** Where the built lab is. */
export const LAB_ENTRY = path.join(root, 'packages/lab/dist/index.js');

/** The lab's exports (`startCliSimulator`, `startOpenApiPeer`, …). */
export function loadLab() {
  if (!existsSync(LAB_ENTRY)) throw new Error('packages/lab/dist is missing: run `npm run build` first');
  return require(LAB_ENTRY);
}
