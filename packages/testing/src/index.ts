// Test helpers of the workspace. One module per helper; add a line per module.
export * from './nats-server';
export * from './process';
export * from './schema-example';
export * from './fixtures';
export * from './eventually';
export * from './workflow-documents';
export * from './finished-jobs';
export * from './node-flags';
export * from './small-disk';
export * from './certificates';
