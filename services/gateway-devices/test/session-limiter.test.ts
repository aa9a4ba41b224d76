import { isAppError } from '@nap/contracts';
import { createSessionLimiter } from '../src/domain/session-limiter';

/** A promise with its resolver, to hold work open until the test says so. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Lets queued promise callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('session limiter', () => {
  it('lets at most the device limit run, and starts waiters in arrival order', async () => {
    const limiter = createSessionLimiter({ perDeviceLimit: 2 });
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => gate());
    const runs = gates.map((g, i) =>
      limiter.run('r1', async () => {
        started.push(i);
        await g.promise;
        return i;
      }),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    expect(limiter.stats()).toEqual({ active: 2, queued: 3, devices: { r1: { active: 2, queued: 3 } } });
    gates[1]?.open();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.open();
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.stats()).toEqual({ active: 0, queued: 0, devices: {} });
  });

  it('does not hold back a free device behind a busy one, within the global limit', async () => {
    const limiter = createSessionLimiter({ perDeviceLimit: 1, globalLimit: 2 });
    const hold = gate();
    const order: string[] = [];
    const work = (name: string) => async (): Promise<void> => {
      order.push(name);
      await hold.promise;
    };
    const runs = [limiter.run('a', work('a1')), limiter.run('a', work('a2')), limiter.run('b', work('b1')), limiter.run('c', work('c1'))];
    await settle();
    // a2 waits for a; b1 may pass it; c1 waits for the global limit.
    expect(order).toEqual(['a1', 'b1']);
    hold.open();
    await Promise.all(runs);
    expect(order).toEqual(['a1', 'b1', 'a2', 'c1']);
  });

  it('changes its limits while requests run: a raised limit lets waiters in at once, a lowered one grants no more until fewer are open', async () => {
    const limiter = createSessionLimiter({ perDeviceLimit: 1 });
    const started: number[] = [];
    const gates = Array.from({ length: 4 }, () => gate());
    const runs = gates.map((g, i) =>
      limiter.run('r1', async () => {
        started.push(i);
        await g.promise;
      }),
    );
    await settle();
    expect(started).toEqual([0]);
    limiter.setLimits({ perDeviceLimit: 3 });
    await settle();
    expect(started).toEqual([0, 1, 2]);
    limiter.setLimits({ perDeviceLimit: 1 });
    gates[0]?.open();
    gates[1]?.open();
    await settle();
    // two of three finished: one is still open, which is the new limit, so the last one waits
    expect(started).toEqual([0, 1, 2]);
    gates[2]?.open();
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    gates[3]?.open();
    await Promise.all(runs);
  });

  it('honours a per-device limit', async () => {
    const limiter = createSessionLimiter({ perDeviceLimit: 1 });
    limiter.setDeviceLimit('big', 3);
    const hold = gate();
    let running = 0;
    let peak = 0;
    const runs = Array.from({ length: 6 }, () =>
      limiter.run('big', async () => {
        running++;
        peak = Math.max(peak, running);
        await hold.promise;
        running--;
      }),
    );
    await settle();
    expect(running).toBe(3);
    hold.open();
    await Promise.all(runs);
    expect(peak).toBe(3);
  });

  it('gives up waiting after the queue timeout with DEVICE_TIMEOUT and keeps serving others', async () => {
    const limiter = createSessionLimiter({ perDeviceLimit: 1, queueTimeoutMs: 50 });
    const hold = gate();
    const first = limiter.run('r1', () => hold.promise);
    const second = limiter.run('r1', () => Promise.resolve('never'));
    const err: unknown = await second.catch((e: unknown) => e);
    expect(isAppError(err) && err.code).toBe('DEVICE_TIMEOUT');
    expect(isAppError(err) && err.message).toContain('No session to device "r1" became free within 50 ms (limit 1');
    expect(limiter.stats().queued).toBe(0);
    hold.open();
    await first;
    await expect(limiter.run('r1', () => Promise.resolve('ok'))).resolves.toBe('ok');
  });

  it('removes an aborted waiter from the queue', async () => {
    const limiter = createSessionLimiter({ perDeviceLimit: 1 });
    const hold = gate();
    const first = limiter.run('r1', () => hold.promise);
    const controller = new AbortController();
    const second = limiter.run('r1', () => Promise.resolve(), { signal: controller.signal });
    const third = limiter.run('r1', () => Promise.resolve('third'));
    controller.abort(new Error('client went away'));
    await expect(second).rejects.toThrow('client went away');
    hold.open();
    await first;
    await expect(third).resolves.toBe('third');
  });

  it('releases the slot when the work fails', async () => {
    const limiter = createSessionLimiter({ perDeviceLimit: 1 });
    await expect(limiter.run('r1', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run('r1', () => Promise.resolve(1))).resolves.toBe(1);
    expect(limiter.stats().active).toBe(0);
  });

  it('resolves ordered requests of a device in arrival order', async () => {
    const limiter = createSessionLimiter({ perDeviceLimit: 2 });
    const slow = gate();
    const finished: number[] = [];
    const runs = [0, 1, 2].map((i) =>
      limiter.run('r1', () => (i === 0 ? slow.promise : Promise.resolve()), { ordered: true }).then(() => finished.push(i)),
    );
    await settle();
    // 1 and 2 are done but wait for 0.
    expect(finished).toEqual([]);
    expect(limiter.stats().active).toBe(1);
    slow.open();
    await Promise.all(runs);
    expect(finished).toEqual([0, 1, 2]);
  });

  it('refuses limits below 1', () => {
    expect(() => createSessionLimiter({ perDeviceLimit: 0 })).toThrow('at least 1');
  });
});
