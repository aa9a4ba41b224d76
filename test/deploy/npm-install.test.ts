import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/**
 * `npm ci` on the Node this project declares is quiet: no package of the lockfile wants a newer Node
 * (npm's EBADENGINE warnings), and every package with an install script has a decision in
 * `allowScripts` (npm blocks them by default and lists the undecided ones after every install).
 */

const ROOT = path.resolve(__dirname, '../..');

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
  hasInstallScript?: boolean;
  link?: boolean;
}

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** `node_modules/a/node_modules/@b/c` → `@b/c`. */
function packageName(location: string): string {
  return location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

describe('npm ci on the declared Node', () => {
  const oldest = semver.minVersion(manifest.engines.node)?.version ?? '';

  it('declares the oldest Node it supports', () => {
    expect(oldest).toBe('20.19.0');
  });

  it('installs no package that wants a newer Node than the oldest declared (no EBADENGINE warning)', () => {
    const refused: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (location === '' || wanted === undefined) continue;
      if (!semver.satisfies(oldest, wanted)) refused.push(`${packageName(location)}@${entry.version ?? '?'} wants node ${wanted}`);
    }
    expect(refused).toEqual([]);
  });

  it('has a decision in allowScripts for every package with an install script', () => {
    const withScripts = new Set(
      Object.entries(lock.packages)
        .filter(([location, entry]) => location !== '' && entry.hasInstallScript === true && entry.link !== true)
        .map(([location]) => packageName(location)),
    );
    const decided = new Set(Object.keys(manifest.allowScripts ?? {}).map((key) => key.replace(/(.)@[^@]*$/, '$1')));
    expect([...withScripts].filter((name) => !decided.has(name)).sort()).toEqual([]);
  });
});
