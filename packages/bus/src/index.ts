export * from './types';
export * from './codec';
export * from './client';
export * from './serve';
export { createMemoryBus, createMemoryBroker, MemoryBus, MemoryBroker } from './memory-bus';
export type { MemoryBusOptions, MemoryBrokerOptions } from './memory-bus';
export { createNatsBus, NatsBus } from './nats-bus';
export type { NatsBusOptions, NatsEventStreamOptions, BusLogger, EventConsumerSettings, EventStreamLimits } from './nats-bus';
export * from './idempotency';
