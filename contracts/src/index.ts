export * from './errors';
export * from './roles';
export * from './services';
export * from './catalog/types';
