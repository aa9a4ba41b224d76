/** Browsers by what their `User-Agent` says, the most specific first: Edge says Chrome too, and Chrome says Safari. */
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/\bEdg\/(\d+)/, 'Edge'],
  [/\bFirefox\/(\d+)/, 'Firefox'],
  [/\b(?:Headless)?Chrome\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)\S* .*\bSafari\//, 'Safari'],
];

/** Systems by what the first parenthesis of a browser's `User-Agent` says (Android's says Linux too). */
const SYSTEMS: readonly (readonly [string, string])[] = [
  ['Android', 'Android'],
  ['iPhone', 'iPhone'],
  ['iPad', 'iPad'],
  ['Windows', 'Windows'],
  ['Mac OS X', 'macOS'],
  ['Linux', 'Linux'],
];

/**
 * A client's `User-Agent` in a few words, for a person reading a list of sessions: a browser as
 * `Chrome 131 on Linux`, anything else as its first product (`python-requests/2.32.3`), `-` when
 * there is none. Pure, with no imports: the console loads it too.
 */
export function userAgentSummary(userAgent: string | undefined): string {
  if (userAgent === undefined || userAgent.trim() === '') return '-';
  if (userAgent.startsWith('Mozilla/')) {
    const system = /\(([^)]*)\)/.exec(userAgent)?.[1] ?? '';
    const os = SYSTEMS.find(([key]) => system.includes(key))?.[1];
    for (const [pattern, name] of BROWSERS) {
      const version = pattern.exec(userAgent)?.[1];
      if (version !== undefined) return `${name} ${version}${os === undefined ? '' : ` on ${os}`}`;
    }
  }
  return (userAgent.trim().split(/\s+/)[0] ?? '-').slice(0, 40);
}
