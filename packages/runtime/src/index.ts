export * from './config';
export * from './service';
export * from './process';
export * from './secret-box';
export * from './main';
export * from './health';
export * from './probe';
export * from './idempotency';
