import { SYSTEM_CALLER } from '@nap/contracts';
import { createBusClient } from './client';
import { createMemoryBus } from './memory-bus';
import type { RequestOptions } from './types';

describe('the bus client', () => {
  it('hedges reads (GET and the POST reads marked safe, of 15 s or more) after a sixth of their timeout, and nothing else', async () => {
    const bus = createMemoryBus();
    const sent: RequestOptions[] = [];
    const request = bus.request.bind(bus);
    bus.request = (subject, data, options) => {
      sent.push(options);
      return request(subject, data, options);
    };
    const client = createBusClient({ bus });
    const call = (id: string, input = {}) => client.callRaw(id, input, { caller: SYSTEM_CALLER }).catch(() => undefined);
    // nobody serves these: only what the client asked the bus for is looked at
    await call('workflow.getJob', { params: { jobId: 'j1' } });
    await call('workflow.startJobWithOptions', { params: { name: 'w' }, body: { options: {} } });
    await call('admin.logout');
    await call('gateway-devices.getInventoryDevice', { body: { name: 'core-1' } });
    await call('mop.GetBootFlash', { body: { device: 'core-1' } });
    await client
      .callRaw('workflow.getJob', { params: { jobId: 'j1' } }, { caller: SYSTEM_CALLER, timeoutMs: 3_000 })
      .catch(() => undefined);
    expect(sent.map((o) => o.hedgeAfterMs)).toEqual([5_000, undefined, undefined, 5_000, undefined, undefined]);
    await bus.close();
  });
});
