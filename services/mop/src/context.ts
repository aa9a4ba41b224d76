import type { AnalyticTemplate, CommandTemplate } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type { RegexEngine } from './domain/regex-engine';
import type { RuleOptions } from './domain/rules';
import type { ReattemptRepository } from './store/reattempts';
import type { RunRepository } from './store/runs';
import type { TemplateRepository } from './store/templates';
import type { ReattemptScheduler } from './engine/reattempt-scheduler';

/** What the handlers of the mop service share. */
export interface MopContext {
  templates: TemplateRepository<CommandTemplate>;
  analytics: TemplateRepository<AnalyticTemplate>;
  runs: RunRepository;
  reattempts: ReattemptRepository;
  scheduler: ReattemptScheduler;
  engine: RegexEngine;
  ruleOptions: RuleOptions;
  /** Devices worked on at once in one run. */
  deviceConcurrency: number;
  /** How many times faster than real time re-attempt waits pass (NAP_TIME_SCALE; 1 is real time). */
  timeScale: number;
  logger: Logger;
}
