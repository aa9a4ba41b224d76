/**
 * `--debug` prints every request as the curl command that does the same, with every credential
 * masked: the Authorization header, `?token=`, and members named like a secret in JSON and form bodies.
 */
const MASK = '****';
const SECRET_NAME = /pass(word)?|secret|token|api[-_]?key|authorization|private[-_]?key/i;

/** A JSON value with the members named like secrets replaced by `****`. */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_NAME.test(k) && v !== null && typeof v !== 'object' ? MASK : maskSecrets(v);
    return out;
  }
  return value;
}

function maskUrl(url: string): string {
  const parsed = new URL(url);
  for (const key of [...parsed.searchParams.keys()]) if (SECRET_NAME.test(key)) parsed.searchParams.set(key, MASK);
  if (parsed.password !== '') parsed.password = MASK;
  return parsed.href;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export interface CurlInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** JSON value, form fields, or raw text. */
  body?: { json: unknown } | { form: Record<string, string> } | undefined;
  insecure?: boolean;
}

export function toCurl(input: CurlInput): string {
  const parts = ['curl'];
  if (input.insecure === true) parts.push('-k');
  if (input.method !== 'GET') parts.push('-X', input.method);
  parts.push(quote(maskUrl(input.url)));
  for (const [name, value] of Object.entries(input.headers)) {
    const shown = SECRET_NAME.test(name) ? value.replace(/^(Bearer|Basic)\s+.*/i, `$1 ${MASK}`) : value;
    parts.push('-H', quote(`${name}: ${shown === value && SECRET_NAME.test(name) ? MASK : shown}`));
  }
  const body = input.body;
  if (body !== undefined && 'json' in body) parts.push('-d', quote(JSON.stringify(maskSecrets(body.json))));
  if (body !== undefined && 'form' in body) {
    for (const [k, v] of Object.entries(body.form)) parts.push('-d', quote(`${k}=${SECRET_NAME.test(k) ? MASK : v}`));
  }
  return parts.join(' ');
}
