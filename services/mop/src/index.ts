export { createMopService } from './service';
export type { MopServiceOptions } from './service';
export { createInlineRegexEngine } from './domain/regex-engine';
export type { RegexEngine, RegexJob, RegexOutcome } from './domain/regex-engine';
export { evaluateRules } from './domain/rules';
export { runCommandTemplate } from './domain/run';
export type { CommandRunner, RunContext } from './domain/run';
export { createRegexPool } from './clients/regex-pool';
export type { RegexPool, RegexPoolOptions } from './clients/regex-pool';
