// Bundles the CLI into one CommonJS file, so that the published package installs with no
// dependency (no private @nap/* package, nothing from a registry) and starts fast. Modules that
// only some commands need are imported lazily in the source; esbuild keeps them lazy.
import { build } from 'esbuild';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Packages that only some commands load: each becomes dist/vendor/<name>.js, required on first
// use, so that `nap --version` parses none of them.
const VENDORED = ['undici', 'yaml', 'cli-table3', 'eventsource-parser', 'yocto-spinner'];
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  format: 'cjs',
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
};
const vendorPlugin = {
  name: 'vendor',
  setup(b) {
    const filter = new RegExp(`^(${VENDORED.map((v) => v.replace(/[-/]/g, '\\$&')).join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: `./vendor/${args.path}.js`, external: true }));
  },
};
const result = await build({ ...common, entryPoints: ['src/main.ts'], outfile: 'dist/nap.js', plugins: [vendorPlugin] });
for (const name of VENDORED) {
  const vendored = await build({
    ...common,
    stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: process.cwd(), loader: 'js' },
    outfile: `dist/vendor/${name}.js`,
  });
  Object.assign(result.metafile.inputs, vendored.metafile.inputs);
}

// The licences of what the bundle carries, beside it.
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match === null) continue;
  const dir = input.slice(0, match.index + match[0].length);
  if (packages.has(match[1])) continue;
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const licenceFile = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  packages.set(match[1], {
    version: pkg.version,
    license: pkg.license,
    text: licenceFile === undefined ? '' : readFileSync(path.join(dir, licenceFile), 'utf8').trim(),
  });
}
const notices = [...packages.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([name, p]) => `${name} ${p.version} (${p.license})\n\n${p.text}\n`)
  .join('\n---\n\n');
writeFileSync('dist/THIRD-PARTY-NOTICES.txt', `nap bundles these packages:\n\n${notices}`);
if (!existsSync('dist/nap.js')) process.exit(1);
