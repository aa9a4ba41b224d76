// What every benchmark shares: whether it runs at smoke size, and the machine-readable line of each
// figure (`BENCH {...}`) that `npm run bench` (run.mjs) collects into one table. The format is in
// README.md; a benchmark may print the line by hand as well.

/** True under `--smoke`: a tiny run that proves the benchmark still works; its figures mean nothing. */
export const SMOKE = process.argv.includes('--smoke');

/** `full` normally, `smoke` under `--smoke`: the size of a benchmark's work. */
export function size(full, smoke) {
  return SMOKE ? smoke : full;
}

/**
 * Prints one figure as a `BENCH` line:
 * - `name`: what is measured, unique within the benchmark (`filtered page p50 at 1,000,000 jobs`);
 * - `value` and `unit` (`ms`, `req/s`, `ratio`, …);
 * - `target` (optional): the goal as `<op> <number>` in the same unit, `<=`, `<`, `>=` or `>`;
 * - `baseline` (optional): `{ name, value }` measured in the same run, in the same unit;
 * - `better` (optional): `lower` or `higher`, when neither target nor baseline says it.
 * Non-finite values are printed as null.
 */
export function report({ name, value, unit, target, baseline, better }) {
  if (typeof name !== 'string' || name === '') throw new Error('report: a figure needs a name');
  if (typeof unit !== 'string') throw new Error(`report: figure "${name}" needs a unit`);
  if (target !== undefined && !/^(<=|<|>=|>)\s*-?[\d.]+(e-?\d+)?$/.test(target))
    throw new Error(`report: target "${target}" of "${name}" is not "<op> <number>"`);
  const line = {
    name,
    value: Number.isFinite(value) ? value : null,
    unit,
    ...(target !== undefined ? { target } : {}),
    ...(baseline !== undefined
      ? { baseline: { name: baseline.name, value: Number.isFinite(baseline.value) ? baseline.value : null } }
      : {}),
    ...(better !== undefined ? { better } : {}),
    ...(SMOKE ? { smoke: true } : {}),
  };
  console.log(`BENCH ${JSON.stringify(line)}`);
}

/**
 * Says that the benchmark cannot run here (a prerequisite is missing) as a `BENCH {"skipped": …}`
 * line and a loud warning, and ends the process: exit 0 on a developer machine, 1 under CI=true
 * (where a benchmark that does not run is a failure, not a skip).
 */
export function skip(reason) {
  console.log(`BENCH ${JSON.stringify({ skipped: reason })}`);
  const ci = !['', '0', 'false'].includes((process.env.CI ?? '').trim().toLowerCase());
  console.error(`${'!'.repeat(100)}\nBENCHMARK NOT RUN: ${reason}\n${'!'.repeat(100)}`);
  process.exit(ci ? 1 : 0);
}

/** The `q` quantile (0–1) of numbers sorted ascending. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * The median of `values` (the upper one of an even count) with their least and greatest: how a
 * figure measured in several rounds is reported, a ratio taken round by round among them.
 */
export function spread(values) {
  const sorted = [...values].sort((x, y) => x - y);
  return { median: quantile(sorted, 0.5), min: sorted[0] ?? Number.NaN, max: sorted[sorted.length - 1] ?? Number.NaN };
}

/** `0.91 (0.84–0.93)`: a {@link spread} as text, its range left out when there is none (one round). */
export function spreadText({ median, min, max }, digits = 2) {
  return min === max ? median.toFixed(digits) : `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;
}
