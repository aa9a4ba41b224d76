/**
 * Figures of the campaign: what each scenario measured, printed together at the end of the run by
 * `figures-reporter.js` beside their goals. Goals are never asserted: a figure far from its goal is a
 * finding to read, not a failed test; failures are lost, duplicated or half-written work, a 500, a
 * crash, or a request held past its operation's timeout.
 */
import { appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where figures are appended (JSON lines); the reporter reads it. */
export const FIGURES_FILE = process.env.NAP_FAULTS_FIGURES ?? path.join(os.tmpdir(), 'nap-faults-figures.jsonl');

export interface Figure {
  scenario: string;
  label: string;
  value: string;
  goal?: string;
}

/** Records a figure: a number with its unit, or text. */
export function figure(scenario: string, label: string, value: number | string, unit = '', goal?: string): void {
  const shown = typeof value === 'number' ? `${Number.isInteger(value) ? value : value.toFixed(1)}${unit ? ` ${unit}` : ''}` : value;
  const line: Figure = { scenario, label, value: shown, ...(goal !== undefined ? { goal } : {}) };
  appendFileSync(FIGURES_FILE, `${JSON.stringify(line)}\n`);
}

/** The q-quantile of numbers (NaN for none). */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}
