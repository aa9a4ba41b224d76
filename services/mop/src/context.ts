import type { AnalyticRunResult, AnalyticTemplate, CommandTemplate, TemplateRunResult } from '@nap/contracts';
import type { HandlerContext } from '@nap/bus';
import { sendCommands } from './clients/device-gateway';
import type { DiffEngine } from './domain/diff';
import type { CommandRunner } from './clients/device-gateway';
import type { RegexEngine } from './domain/regex-engine';
import type { RuleOptions } from './domain/rules';
import { planTemplateRun, templateRunResult } from './domain/template-run';
import type { ReattemptScheduler } from './engine/reattempt-scheduler';
import type { ReattemptRepository } from './store/reattempts';
import type { RunRepository } from './store/runs';
import type { TemplateRepository } from './store/templates';

/** What the handlers of the mop service share. */
export interface MopContext {
  templates: TemplateRepository<CommandTemplate>;
  analytics: TemplateRepository<AnalyticTemplate>;
  runs: RunRepository;
  reattempts: ReattemptRepository;
  scheduler: ReattemptScheduler;
  /** Evaluates the user-written patterns of rules, each bounded in time (the worker pool). */
  engine: RegexEngine;
  ruleOptions: RuleOptions;
  /** Runs line diffs, each bounded in time and memory, off the event loop (the diff pool). */
  differ: DiffEngine;
  /** Devices worked on at once in one run. */
  deviceConcurrency: number;
  /** How many times faster than real time re-attempt waits pass (NAP_TIME_SCALE; 1 is real time). */
  timeScale: number;
}

/** What running a command template takes from the context. */
export type TemplateRunSettings = Pick<MopContext, 'engine' | 'ruleOptions' | 'deviceConcurrency'>;

/**
 * The run settings of one request: the context's, with the request's `deadline` (epoch ms) in the
 * rule options, so that the patterns of a run its caller no longer waits for are not started.
 */
export function runSettings(svc: TemplateRunSettings, deadline: number): TemplateRunSettings {
  return { engine: svc.engine, deviceConcurrency: svc.deviceConcurrency, ruleOptions: { ...svc.ruleOptions, deadline } };
}

/**
 * Runs a command template (or the commands at `commandIndexes`) on devices: sends the commands
 * through `run` (devices in parallel, at most `deviceConcurrency` at once; the commands of one device
 * in order), then evaluates the rules on what each device answered.
 */
export async function runTemplate(
  svc: TemplateRunSettings,
  run: CommandRunner,
  template: CommandTemplate,
  devices: readonly string[],
  variables: Readonly<Record<string, unknown>>,
  commandIndexes?: readonly number[],
): Promise<TemplateRunResult> {
  const plan = planTemplateRun(template, devices, variables, commandIndexes);
  const answered = await sendCommands(run, plan.devices, plan.sends, svc.deviceConcurrency);
  return templateRunResult(plan, answered, svc.engine, svc.ruleOptions);
}

/** What the history keeps of a run besides who ran it (its output masked by the repository). */
export type RunToKeep<T extends TemplateRunResult | AnalyticRunResult> = Omit<
  Parameters<RunRepository['keep']>[0],
  'createdBy' | 'output'
> & { output: T };

/**
 * Keeps a run in the history as the caller's and answers its output with the id it is kept under:
 * the last step of every run operation.
 */
export async function keepRun<T extends TemplateRunResult | AnalyticRunResult>(
  svc: Pick<MopContext, 'runs'>,
  ctx: Pick<HandlerContext, 'caller'>,
  run: RunToKeep<T>,
): Promise<T & { runId: string }> {
  const runId = await svc.runs.keep({ ...run, createdBy: ctx.caller.username });
  return { ...run.output, runId };
}
