/**
 * The query language of the `query` and `evaluation` tasks, as existing workflows write it (the
 * json-query dialect): `response.items[0].id`, `entry[].@name`, `response[*].status`,
 * `data[*status=removed]`, `[name=core-1].id`, `reports[*score!=100.00]`, `response[versa-tasks.task]`.
 *
 * - `a.b` reads member `b` of `a`; a member name may hold any character but `.` and `[`.
 * - `[n]` reads index n of an array; `[key]` reads a member whose name may contain dots.
 * - `[]` and `[*]` apply the rest of the query to every element and collect the results.
 * - `[k=v]` is the first element whose `k` equals `v`, `[*k=v]` every such element; `!=` negates;
 *   `[*k]` the `k` of every element that has one.
 * Values compare as numbers when both sides are numeric, else as text. An empty query is the input.
 * Throws `Error` for a malformed query (an unclosed bracket, an empty member).
 */
export function runJsonQuery(input: unknown, query: string): unknown {
  const steps = parse(query);
  return apply(input, steps, 0);
}

type Step =
  | { kind: 'member'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; key: string; op: '=' | '!=' | 'has'; value: string; every: boolean };

function parse(query: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const text = query.trim();
  while (i < text.length) {
    const ch = text[i];
    if (ch === '.') {
      i += 1;
      continue;
    }
    if (ch === '[') {
      const close = text.indexOf(']', i);
      if (close < 0) throw new Error(`The query "${query}" has an unclosed "["`);
      steps.push(bracket(text.slice(i + 1, close).trim()));
      i = close + 1;
      continue;
    }
    let end = i;
    while (end < text.length && text[end] !== '.' && text[end] !== '[') end += 1;
    const name = text.slice(i, end).trim();
    if (name === '') throw new Error(`The query "${query}" has an empty member name`);
    steps.push({ kind: 'member', name });
    i = end;
  }
  return steps;
}

function bracket(inner: string): Step {
  if (inner === '' || inner === '*') return { kind: 'all' };
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const every = inner.startsWith('*');
  const body = every ? inner.slice(1) : inner;
  const ne = body.indexOf('!=');
  if (ne > 0) return { kind: 'filter', key: body.slice(0, ne).trim(), op: '!=', value: body.slice(ne + 2).trim(), every };
  const eq = body.indexOf('=');
  if (eq > 0) return { kind: 'filter', key: body.slice(0, eq).trim(), op: '=', value: body.slice(eq + 1).trim(), every };
  if (every) return { kind: 'filter', key: body, op: 'has', value: '', every: true };
  return { kind: 'member', name: body };
}

function member(value: unknown, name: string): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  if (!Object.hasOwn(value, name)) return undefined;
  return (value as Record<string, unknown>)[name];
}

function matches(element: unknown, key: string, op: '=' | '!=', expected: string): boolean {
  const actual = member(element, key);
  if (actual === undefined) return op === '!=';
  const equal = sameValue(actual, unquote(expected));
  return op === '=' ? equal : !equal;
}

function unquote(text: string): string {
  const m = /^(["'])(.*)\1$/.exec(text);
  return m ? (m[2] ?? '') : text;
}

function sameValue(actual: unknown, expected: string): boolean {
  if (typeof actual === 'number' || (typeof actual === 'string' && actual.trim() !== '' && !Number.isNaN(Number(actual)))) {
    const n = Number(expected);
    if (expected.trim() !== '' && !Number.isNaN(n)) return Number(actual) === n;
  }
  if (typeof actual === 'boolean') return String(actual) === expected;
  if (actual === null) return expected === 'null';
  return typeof actual === 'object' ? JSON.stringify(actual) === expected : String(actual) === expected;
}

function apply(value: unknown, steps: readonly Step[], from: number): unknown {
  let current = value;
  for (let s = from; s < steps.length; s += 1) {
    const step = steps[s] as Step;
    if (current === undefined || current === null) return undefined;
    switch (step.kind) {
      case 'member':
        current = member(current, step.name);
        break;
      case 'index': {
        if (!Array.isArray(current)) return undefined;
        current = current[step.index < 0 ? current.length + step.index : step.index];
        break;
      }
      case 'all': {
        const items = Array.isArray(current) ? current : typeof current === 'object' ? Object.values(current as object) : [];
        return items.map((item) => apply(item, steps, s + 1)).filter((item) => item !== undefined);
      }
      case 'filter': {
        if (!Array.isArray(current)) return undefined;
        if (step.op === 'has') {
          current = current.map((item) => member(item, step.key)).filter((item) => item !== undefined);
          break;
        }
        const op = step.op;
        if (step.every) {
          const found = current.filter((item) => matches(item, step.key, op, step.value));
          return found.map((item) => apply(item, steps, s + 1)).filter((item) => item !== undefined);
        }
        current = current.find((item) => matches(item, step.key, op, step.value));
        break;
      }
    }
  }
  return current;
}
