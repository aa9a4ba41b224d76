import { readFileSync } from 'node:fs';

/** The flags between `node` and the script in a start command (`exec node --a=1 --b x.js` → `['--a=1', '--b']`). */
export function nodeFlagsOf(command: string): string[] {
  const words = command.trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node === -1) throw new Error(`No node command in "${command}"`);
  const flags: string[] = [];
  for (const word of words.slice(node + 1)) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}

/**
 * The Node flags of a package's `npm start` (its `scripts.start`): for NAP's root package.json, the
 * flags the standalone platform runs with, which the image's CMD, the workflow service's commands
 * and the benchmarks repeat.
 */
export function startScriptNodeFlags(packageJsonPath: string): string[] {
  const pkg = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { scripts?: { start?: string } };
  const start = pkg.scripts?.start;
  if (start === undefined) throw new Error(`${packageJsonPath} has no start script`);
  return nodeFlagsOf(start);
}
