import { AppError } from '@nap/contracts';
import type { SetLeafBody } from '@nap/contracts';

/**
 * The pure part of set leaf: the variables text, their substitution in the keypath and the value,
 * and the commit flags that `dryRun` and `options` ask for.
 */

/**
 * Parses `variables`: one `name value` pair per line (the value is the rest of the line after the
 * first run of blanks; a name alone is the empty value), or `name=value`. Blank lines and lines
 * starting with `#` are skipped. A JSON object of scalars (`{"dev": "C-IOS1"}`) is read too.
 */
export function parseVariables(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      for (const [name, value] of Object.entries(parsed)) {
        if (typeof value === 'object' && value !== null) {
          throw new AppError('VALIDATION_FAILED', `body.variables: variable "${name}" is an object; values are text`, {
            details: [{ member: 'body.variables', message: `variable "${name}" is not a scalar` }],
          });
        }
        out.set(name, String(value));
      }
      return out;
    }
  }
  for (const line of text.split(/\r?\n/)) {
    const l = line.trim();
    if (l === '' || l.startsWith('#')) continue;
    // `name=value` is read too, when the first word holds the `=`
    const m = /^([^\s=]+)=(.*)$/.exec(l) ?? /^(\S+)(?:\s+(.*))?$/.exec(l);
    if (m?.[1] !== undefined) out.set(m[1], (m[2] ?? '').trim());
  }
  return out;
}

/** `<!name!>` and `!name!` (name: letters, digits, `_`, `-`, `.`). */
const MARKER = /<!([\w.-]+)!>|!([\w.-]+)!/g;

/** `text` with every variable marker replaced; 400 ORCH_VARIABLE_UNDEFINED naming the first undefined one and where it is used. */
export function substitute(text: string, variables: Map<string, string>, member: string): string {
  return text.replace(MARKER, (_whole, angled: string | undefined, bare: string | undefined) => {
    const name = angled ?? bare ?? '';
    const value = variables.get(name);
    if (value === undefined) {
      const defined = [...variables.keys()];
      throw new AppError(
        'ORCH_VARIABLE_UNDEFINED',
        `Variable "${name}" used in ${member} is not defined in body.variables (${defined.length > 0 ? `it defines ${defined.join(', ')}` : 'it defines none'})`,
        {
          details: [{ member, variable: name, message: `variable "${name}" is not defined in body.variables` }],
        },
      );
    }
    return value;
  });
}

/** What set leaf does once the leaf is written: commit (with flags), or validate only (staging). */
export interface SetLeafPlan {
  /** A dry run was asked for (`dryRun: true` or `options: "dryrun"`). */
  dryRun: boolean;
  /** `staging`: write and validate, never commit. */
  staging: boolean;
  /** Commit flags for `validate_commit` and `commit`. */
  flags: string[];
}

/**
 * The flags of `dryRun` and `options`: `dryrun` (or `dryRun: true`) → `dry-run=cli`, with
 * `outformat` → `dry-run=native` (the devices' own commands); `async`/`sync` → `commit-queue=…`;
 * `no_overwrite` → `no-overwrite`; `staging` → no commit. A dry run with the commit queue or
 * no-overwrite is refused (400), as NSO refuses it.
 */
export function planOf(body: Pick<SetLeafBody, 'dryRun' | 'options'>): SetLeafPlan {
  const { options } = body;
  const dryRun = body.dryRun || options === 'dryrun';
  if (dryRun && (options === 'async' || options === 'sync' || options === 'no_overwrite')) {
    throw new AppError(
      'VALIDATION_FAILED',
      `body.options "${options}" cannot go with a dry run (dryRun true): NSO refuses a dry run with the commit queue or no-overwrite`,
      {
        details: [{ member: 'body.options', message: `"${options}" cannot be used with a dry run` }],
      },
    );
  }
  const flags: string[] = [];
  if (dryRun) flags.push(options === 'outformat' ? 'dry-run=native' : 'dry-run=cli');
  if (options === 'async' || options === 'sync') flags.push(`commit-queue=${options}`);
  if (options === 'no_overwrite') flags.push('no-overwrite');
  return { dryRun, staging: options === 'staging', flags };
}
