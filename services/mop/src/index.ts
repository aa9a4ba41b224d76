export { createMopService } from './service';
export type { MopServiceOptions } from './service';
export { createInlineRegexEngine } from './domain/regex-engine';
export type { RegexEngine, RegexJob, RegexOutcome } from './domain/regex-engine';
export { evaluateRules } from './domain/rules';
export { createRegexPool } from './clients/regex-pool';
export type { RegexPool, RegexPoolOptions } from './clients/regex-pool';
