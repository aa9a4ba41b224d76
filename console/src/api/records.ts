/** A plain object (not null, not an array): how job data and answers of every age are read before their members are. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
