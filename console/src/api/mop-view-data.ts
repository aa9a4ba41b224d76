/**
 * The views of MOP's manual tasks (`GET /mop/task/<name>`), read for the person who decides: a
 * command template's results device by device, and the line diffs before and after a change. Job
 * data comes from workflows of every age, so each member is read and checked, never cast.
 */
import { isRecord } from './records';

const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));

export interface FailedRule {
  rule: string;
  eval: string;
  severity: string;
  message?: string;
}

export interface CommandOutcome {
  command: string;
  result: boolean;
  skipped: boolean;
  message?: string;
  failedRules: FailedRule[];
  response: string;
}

export interface DeviceOutcome {
  device: string;
  passed: boolean;
  commands: CommandOutcome[];
}

/** viewTemplateResults: the template's name, the whole run's result, and each device's commands. */
export interface TemplateResults {
  name?: string;
  result?: boolean;
  devices: DeviceOutcome[];
}

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

/** A rule as the views show it; `eval` and `severity` as MOP defaults them when a rule leaves them out. */
function ruleOf(r: Record<string, unknown>): FailedRule {
  return {
    rule: text(r.rule),
    eval: text(r.eval) || 'contains',
    severity: text(r.severity) || 'error',
    ...(typeof r.message === 'string' ? { message: r.message } : {}),
  };
}

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
        failedRules: (Array.isArray(c.failedRules) ? c.failedRules : []).filter(isRecord).map(ruleOf),
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

/**
 * A command template run's answer (`RunCommandTemplate`, a MOP task's `mop_template_results`) read
 * as the review view reads it: its `commands_results` by device, a device passing under the
 * template's passRule (every command, or one where `all_pass_flag` is false). Undefined for any
 * other value.
 */
export function runResults(value: unknown): TemplateResults | undefined {
  if (!isRecord(value) || !Array.isArray(value.commands_results)) return undefined;
  const entries = value.commands_results.filter(isRecord);
  const allMustPass = value.all_pass_flag !== false;
  const devices = [...new Set(entries.map((e) => text(e.device)))].map((device): DeviceOutcome => {
    const commands = entries
      .filter((e) => text(e.device) === device)
      .map((e): CommandOutcome => ({
        command: text(e.evaluated) || text(e.raw),
        result: e.result === true,
        skipped: e.skipped === true,
        ...(typeof e.message === 'string' ? { message: e.message } : {}),
        failedRules: (Array.isArray(e.rules) ? e.rules : [])
          .filter(isRecord)
          .filter((r) => r.result !== true)
          .map(ruleOf),
        response: text(e.response),
      }));
    return { device, passed: allMustPass ? commands.every((c) => c.result) : commands.some((c) => c.result), commands };
  });
  return {
    ...(typeof value.name === 'string' ? { name: value.name } : {}),
    ...(typeof value.result === 'boolean' ? { result: value.result } : {}),
    devices,
  };
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

/** "passed on edge-1", "failed on 1 of 2 devices": a run's outcome in words. */
export function resultsSummary(results: TemplateResults): string {
  const total = results.devices.length;
  const failed = results.devices.filter((d) => !d.passed).length;
  const passed = results.result ?? failed === 0;
  if (total === 0) return passed ? 'passed' : 'failed';
  if (passed)
    return total === 1
      ? `passed on ${results.devices[0]?.device}`
      : total === 2
        ? 'passed on both devices'
        : `passed on all ${total} devices`;
  return total === 1 ? `failed on ${results.devices[0]?.device}` : `failed on ${failed} of ${total} devices`;
}
