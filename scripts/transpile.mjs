#!/usr/bin/env node
// A package's build: its TypeScript sources (src/, tests left out) transpiled file by file to
// CommonJS in dist/, with source maps, by esbuild. Types are not this step's job: they are checked
// once for the whole workspace by `npm run typecheck` (one tsc program, which `npm test` runs), so
// that a build takes seconds and checks nothing twice. Files other than TypeScript are copied as
// they are (a package's Python worker, for example).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const SRC = 'src';
const OUT = 'dist';
const isTest = (file) => /\.test\.tsx?$/.test(file);
const isTypeScript = (file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts');

const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
  .filter((file) => !isTest(file));

rmSync(OUT, { recursive: true, force: true });
await build({
  entryPoints: files.filter(isTypeScript),
  outdir: OUT,
  outbase: SRC,
  bundle: false,
  platform: 'node',
  format: 'cjs',
  target: 'node20.19',
  sourcemap: true,
  tsconfig: 'tsconfig.json',
  logLevel: 'warning',
});
for (const file of files.filter((f) => !isTypeScript(f) && !f.endsWith('.d.ts'))) {
  const to = path.join(OUT, path.relative(SRC, file));
  mkdirSync(path.dirname(to), { recursive: true });
  copyFileSync(file, to);
}
