import { SECRET_MASK, isSecretKey, redactSecrets } from '@nap/contracts';
import type { AnalyticRunResult, Caller, TemplateRunKind, TemplateRunResult } from '@nap/contracts';
import type { RunRepository } from './store/runs';

/** Shortest secret value searched for in texts: shorter ones would mask unrelated text. */
const MIN_SECRET_LENGTH = 3;

/** The values of the secret variables (by the platform's secret policy), longest first. */
function secretValues(variables: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (!isSecretKey(name)) continue;
    for (const v of Array.isArray(value) ? value : [value])
      if ((typeof v === 'string' || typeof v === 'number') && String(v).length >= MIN_SECRET_LENGTH) out.push(String(v));
  }
  return out.sort((a, b) => b.length - a.length);
}

/** `value` with every occurrence of a secret value inside its strings replaced by the mask. */
function maskValues(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return secrets.reduce((text, secret) => text.split(secret).join(SECRET_MASK), value);
  if (Array.isArray(value)) return value.map((item) => maskValues(item, secrets));
  if (value !== null && typeof value === 'object') return maskMembers(Object.entries(value), secrets);
  return value;
}

function maskMembers(members: Iterable<[string, unknown]>, secrets: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, member] of members) out[key] = maskValues(member, secrets);
  return out;
}

/**
 * A copy of `document` with the values of the secret `variables` masked wherever a text holds them
 * (commands, rules, device output) and every secret-named member masked (the contracts' policy).
 */
export function maskSecrets(
  document: Readonly<Record<string, unknown>>,
  variables: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return redactSecrets(maskMembers(Object.entries(document), secretValues(variables)));
}

/** Keeps a run in the history (secrets masked) and answers its id. */
export async function recordRun(
  runs: RunRepository,
  run: {
    kind: TemplateRunKind;
    template: string;
    devices: string[];
    variables: Record<string, unknown>;
    started: number;
    caller: Caller;
    output: TemplateRunResult | AnalyticRunResult;
  },
): Promise<string> {
  const stored = await runs.record({
    kind: run.kind,
    template: run.template,
    devices: run.devices,
    variables: maskSecrets(run.variables, run.variables),
    result: run.output.result,
    started: run.started,
    finished: Date.now(),
    createdBy: run.caller.username,
    output: maskSecrets(run.output, run.variables),
  });
  return stored._id;
}
