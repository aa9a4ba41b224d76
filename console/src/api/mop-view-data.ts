/**
 * The views of MOP's manual tasks (`GET /mop/task/<name>`), read for the person who decides: a
 * command template's results device by device, and the line diffs before and after a change. Job
 * data comes from workflows of every age, so each member is read and checked, never cast.
 */
import type { TemplateOutcome } from '@nap/contracts';
import { failedRuleOf } from '@nap/contracts/dist/template-results';
import { isRecord } from './records';

const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));

export type { CommandOutcome, DeviceOutcome, FailedRule } from '@nap/contracts';

/** viewTemplateResults: the template's name, the whole run's result, and each device's commands. */
export type TemplateResults = TemplateOutcome;

/** One part of a line diff, as the platform's diff answers it. */
export interface DiffPart {
  type: 'added' | 'removed' | 'unchanged';
  value: string;
}

export interface LineDiff {
  parts: DiffPart[];
  added: number;
  removed: number;
}

export type MopView =
  | { kind: 'results'; results: TemplateResults }
  | {
      kind: 'templatesDiff';
      before: TemplateResults;
      after: TemplateResults;
      diffs: { device: string; command: string; diff: LineDiff }[];
      changed: number;
    }
  | { kind: 'configDiff'; diff: LineDiff };

function templateResults(value: unknown): TemplateResults | undefined {
  if (!isRecord(value) || !Array.isArray(value.devices)) return undefined;
  const devices = value.devices.filter(isRecord);
  if (devices.length !== value.devices.length || !devices.every((d) => Array.isArray(d.commands))) return undefined;
  return {
    ...(typeof value.name === 'string' ? { name: value.name } : {}),
    ...(typeof value.result === 'boolean' ? { result: value.result } : {}),
    devices: devices.map((d) => ({
      device: text(d.device),
      passed: d.passed === true,
      commands: (d.commands as unknown[]).filter(isRecord).map((c) => ({
        command: text(c.command),
        result: c.result === true,
        skipped: c.skipped === true,
        ...(typeof c.message === 'string' ? { message: c.message } : {}),
        failedRules: (Array.isArray(c.failedRules) ? c.failedRules : []).filter(isRecord).map(failedRuleOf),
        response: text(c.response),
      })),
    })),
  };
}

function lineDiff(value: unknown): LineDiff | undefined {
  if (!isRecord(value) || !Array.isArray(value.diff)) return undefined;
  const parts = value.diff
    .filter(isRecord)
    .map((p): DiffPart => ({ type: p.type === 'added' || p.type === 'removed' ? p.type : 'unchanged', value: text(p.value) }));
  return { parts, added: Number(value.added) || 0, removed: Number(value.removed) || 0 };
}

/** What a MOP manual task's view is, or undefined for a view the console shows as JSON. */
export function mopView(view: Record<string, unknown>): MopView | undefined {
  if (Array.isArray(view.diffs)) {
    const diffs = view.diffs.filter(isRecord).flatMap((d) => {
      const diff = lineDiff(d.diff);
      return diff === undefined ? [] : [{ device: text(d.device), command: text(d.command), diff }];
    });
    return {
      kind: 'templatesDiff',
      before: templateResults(view.pre) ?? { devices: [] },
      after: templateResults(view.post) ?? { devices: [] },
      diffs,
      changed: diffs.filter((d) => d.diff.added + d.diff.removed > 0).length,
    };
  }
  const results = templateResults(view);
  if (results !== undefined) return { kind: 'results', results };
  const diff = lineDiff(view);
  if (diff !== undefined) return { kind: 'configDiff', diff };
  return undefined;
}

/** A line of a diff as shown: its sign, its text, or a marker for unchanged lines left out. */
export type DiffLine = { type: DiffPart['type']; text: string } | { type: 'skipped'; count: number };

/**
 * The lines of a diff with `context` unchanged lines around each change; longer unchanged runs
 * become one marker saying how many lines it stands for.
 */
export function diffLines(parts: readonly DiffPart[], context = 3): DiffLine[] {
  const out: DiffLine[] = [];
  parts.forEach((part, i) => {
    const lines = part.value.replace(/\n$/, '').split('\n');
    if (part.type !== 'unchanged') {
      for (const line of lines) out.push({ type: part.type, text: line });
      return;
    }
    const keepBefore = i === 0 ? 0 : context;
    const keepAfter = i === parts.length - 1 ? 0 : context;
    if (lines.length <= keepBefore + keepAfter + 1) {
      for (const line of lines) out.push({ type: 'unchanged', text: line });
      return;
    }
    for (const line of lines.slice(0, keepBefore)) out.push({ type: 'unchanged', text: line });
    out.push({ type: 'skipped', count: lines.length - keepBefore - keepAfter });
    for (const line of lines.slice(lines.length - keepAfter)) out.push({ type: 'unchanged', text: line });
  });
  return out;
}
