import { execFile } from 'node:child_process';

/**
 * The shell examples of a Markdown page, for tests that run a page's examples as written (as
 * `test/e2e/readme-examples.test.ts` does for the README). A fenced block (```` ```sh ````,
 * ```` ```bash ```` or ```` ```shell ````) may be preceded by a marker comment that names the page's
 * test and says what to do with the block, and why:
 *
 *     <!-- devices-guide: not run: it starts the platform, which the test does itself -->
 *     <!-- devices-guide: set by the test: the address of the reader's device -->
 */

/** What a marker asks of a block: leave it out, or let the test give the values it sets. */
export type BlockMarker = { kind: 'not run'; why: string } | { kind: 'set by the test'; why: string };

/** One shell block of a page. */
export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
  marker?: BlockMarker;
}

/** The shell blocks of `markdown` in order, with the markers of `tag` (`<!-- <tag>: … -->`) read. */
export function shellBlocks(markdown: string, tag: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const markerLine = new RegExp(`^<!-- ${tag}: (not run|set by the test): (.+) -->$`);
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[i] ?? '')) continue;
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
    let prev = start - 1;
    while (prev >= 0 && (lines[prev] ?? '').trim() === '') prev -= 1;
    const m = markerLine.exec(lines[prev] ?? '');
    const block: ShellBlock = { line: start + 1, text: body.join('\n') };
    if (m?.[1] !== undefined && m[2] !== undefined) block.marker = { kind: m[1] as BlockMarker['kind'], why: m[2] };
    blocks.push(block);
  }
  return blocks;
}

/** The shell variables a block assigns (`NAME=value`, outside comments), in order, each once. */
export function assignedNames(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split('\n')) {
    const code = line.replace(/(^|\s)#.*$/, '');
    for (const m of code.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)) {
      const name = m[1] as string;
      if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}

/** `value` quoted for bash, whatever it holds. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The lines a page shows as what the command before them prints: comment lines `#> <output>` in
 * the blocks, `…` standing for any text. Answers each with a matcher of one whole output line.
 */
export function shownOutputs(blocks: readonly ShellBlock[]): { line: string; block: number; matches: RegExp }[] {
  const out: { line: string; block: number; matches: RegExp }[] = [];
  for (const b of blocks) {
    for (const raw of b.text.split('\n')) {
      const m = /^\s*#> (.*)$/.exec(raw);
      if (m?.[1] === undefined) continue;
      const pattern = m[1]
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*?');
      out.push({ line: m[1], block: b.line, matches: new RegExp(`^${pattern}$`) });
    }
  }
  return out;
}

/**
 * Checks that every shown output line is printed, in the order shown: each found on a line of
 * `stdout` after the line that matched the one before. Answers the first that is not, or undefined.
 */
export function firstMissingOutput(
  shown: readonly { line: string; block: number; matches: RegExp }[],
  stdout: string,
): { line: string; block: number } | undefined {
  const printed = stdout.split('\n');
  let at = 0;
  for (const s of shown) {
    let found = -1;
    for (let i = at; i < printed.length; i++) {
      if (s.matches.test(printed[i] ?? '')) {
        found = i;
        break;
      }
    }
    if (found === -1) return { line: s.line, block: s.block };
    at = found + 1;
  }
  return undefined;
}

/** What a bash run gave: its exit code (or the signal or error that ended it) and its two outputs. */
export interface BashRun {
  code: number | string;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` in one bash with `set -euo pipefail` (and `inherit_errexit`, so a failing command
 * substitution fails the script). Not spawnSync: a test reads the platform's output meanwhile.
 */
export function runBash(script: string, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<BashRun> {
  const full = ['set -euo pipefail', 'shopt -s inherit_errexit', script].join('\n');
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', full],
      { cwd: options.cwd, env: options.env, encoding: 'utf8', timeout: options.timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : (err.code ?? err.signal ?? 'unknown'), stdout, stderr }),
    );
  });
}
