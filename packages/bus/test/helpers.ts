import { AppError } from '@nap/contracts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

export function text(data: Uint8Array): string {
  return decoder.decode(data);
}

/** Collects items and lets a test wait (bounded) until enough have arrived. */
export class Collector<T> {
  readonly items: T[] = [];
  private waiters: { n: number; resolve: () => void }[] = [];

  push = (item: T): void => {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => {
      if (this.items.length < w.n) return true;
      w.resolve();
      return false;
    });
  };

  /** Resolves once at least `n` items have arrived; rejects after `timeoutMs`. */
  async waitFor(n: number, timeoutMs = 10_000): Promise<T[]> {
    if (this.items.length < n) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`Timed out after ${timeoutMs} ms with ${this.items.length} of ${n} items`)),
          timeoutMs,
        );
        this.waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    }
    return this.items;
  }
}

/** A latch a test opens when it wants a blocked handler to go on. */
export class Gate {
  private open!: () => void;
  readonly opened: Promise<void> = new Promise((resolve) => {
    this.open = resolve;
  });

  release(): void {
    this.open();
  }
}

/** Awaits `promise` expecting an `AppError` with `code`; returns it. */
export async function expectAppError(promise: Promise<unknown>, code: string): Promise<AppError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  if (!(caught instanceof AppError)) {
    throw new Error(`Expected an AppError ${code}, got ${caught === undefined ? 'no error' : String(caught)}`);
  }
  if (caught.code !== code) throw new Error(`Expected an AppError ${code}, got ${caught.code}: ${caught.message}`);
  return caught;
}

/** Like {@link expectAppError} for a function that throws synchronously. */
export function expectThrowsAppError(fn: () => unknown, code: string): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError && err.code === code) return err;
    throw new Error(`Expected an AppError ${code}, got ${String(err)}`);
  }
  throw new Error(`Expected an AppError ${code}, got no error`);
}
