/** Reading the shapes the platform answers in: pages, envelopes, records. */
export type Doc = Record<string, unknown>;

export function isDoc(value: unknown): value is Doc {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The items of a list answer: a bare array, `{ items }`, `{ data }` (envelope), `{ results }` or `{ integrationModels }`. */
export function itemsOf(body: unknown): Doc[] {
  if (Array.isArray(body)) return body.filter(isDoc);
  if (isDoc(body)) {
    for (const key of ['items', 'data', 'results', 'list', 'integrationModels']) {
      const value = body[key];
      if (Array.isArray(value)) return value.filter(isDoc);
    }
  }
  return [];
}

/** The total a list answer reports (`total` or `metadata.total`), when it does. */
export function totalOf(body: unknown): number | undefined {
  if (!isDoc(body)) return undefined;
  if (typeof body.total === 'number') return body.total;
  const meta = body.metadata;
  return isDoc(meta) && typeof meta.total === 'number' ? meta.total : undefined;
}

/** The document inside `{ message, data, metadata }` or `{ status: Created, data }`; else the body. */
export function unwrap(body: unknown): unknown {
  if (isDoc(body) && isDoc(body.data) && ('message' in body || 'status' in body || 'metadata' in body)) return body.data;
  return body;
}

/** A member by dotted path. */
export function field(doc: unknown, dotted: string): unknown {
  let current: unknown = doc;
  for (const part of dotted.split('.')) {
    if (!isDoc(current)) return undefined;
    current = current[part];
  }
  return current;
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}
