export * from './types';
export * from './codec';
export * from './client';
export * from './serve';
