// What the store uses of @nap/contracts, from its modules rather than its index: the store runs in
// worker threads too (the admin service's audit thread), where the index would load every schema and
// TypeBox (~0.2 s of CPU) for an error class. Types may still come from '@nap/contracts'.
export { AppError, isAppError } from '@nap/contracts/dist/errors';
export { assertBeforeDeadline, boundCallsByRequestDeadline, remainingMs } from '@nap/contracts/dist/deadline';
