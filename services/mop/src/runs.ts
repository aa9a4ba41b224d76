import type { AnalyticRunResult, Caller, TemplateRunResult } from '@nap/contracts';
import { MASK, isSecretName } from './domain/names';
import type { RunRepository } from './store/runs';

/** Secret values among the variables (names like password, secret, token, key, community). */
function secretValues(variables: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (!isSecretName(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) if ((typeof v === 'string' || typeof v === 'number') && String(v).length >= 3) out.push(String(v));
  }
  return out.sort((a, b) => b.length - a.length);
}

/** `value` with every secret variable value replaced by a mask, and secret-named members masked. */
export function maskSecrets<T>(value: T, variables: Readonly<Record<string, unknown>>): T {
  const secrets = secretValues(variables);
  let text = JSON.stringify(value);
  for (const secret of secrets) text = text.split(JSON.stringify(secret).slice(1, -1)).join(MASK);
  return JSON.parse(text, (key, v: unknown) => (key !== '' && isSecretName(key) && (typeof v === 'string' || typeof v === 'number') ? MASK : v)) as T;
}

/** Keeps a run in the history (secrets masked) and answers its id. */
export async function recordRun(
  runs: RunRepository,
  run: { kind: 'command' | 'analytic'; template: string; devices: string[]; variables: Record<string, unknown>; started: number; caller: Caller; output: TemplateRunResult | AnalyticRunResult },
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
