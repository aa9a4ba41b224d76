/**
 * What a conformance test does when the shared fixtures (`../shared/fixtures`, beside the clone)
 * are absent: on a developer machine it warns loudly and lets the rest pass; under `CI=true` it
 * fails, because CI has the fixtures and a missing dependency there is a broken CI, not a pass.
 */
export function fixturesAbsent(dir: string, what: string): void {
  const notice = `CONFORMANCE NOT RUN: ${dir} is absent, so ${what} was not checked.\nPut the shared fixtures beside the repository (../shared/fixtures/itential-assets) to run it.`;
  if (isCi()) throw new Error(`${notice}\nCI=true: a conformance suite without its fixtures is a failure, not a skip.`);
  console.warn(`\n${'!'.repeat(100)}\n${notice}\n${'!'.repeat(100)}\n`);
}

/** True when running under CI (`CI` set to anything but empty, `0` or `false`). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== '0' && value !== 'false';
}
