/**
 * Shared JSON Schemas of the catalog and the TypeScript types derived from them. The small schema
 * builders of common.ts stay internal to the contracts package; `Static` and `TSchema` are exported
 * so that services can write generic code over schemas (`parseAs(schema, value)` answers `Static<T>`).
 */
export { UUID_V4_PATTERN, embed } from './common';
export type { Acknowledgement, Page, Results, Static, TSchema } from './common';
export * from './query';
export * from './job';
export * from './automation';
export * from './mop';
export * from './device-template';
export * from './template-builder';
export * from './devices';
export * from './form';
export * from './integration';
export * from './adapter';
export * from './prebuilt';
export * from './orch';
export * from './ssh';
export * from './auth';
export * from './studio';
export * from './envelope';
export * from './trigger';
export * from './engine';
export * from './job-archive';
export * from './project';
export * from './transformation';
export * from './application';
export * from './profile';
export * from './sign-in';
export * from './link';
export * from './audit';
