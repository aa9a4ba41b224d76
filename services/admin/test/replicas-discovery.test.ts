import type { Bus, ServiceInfo } from '@nap/bus';
import { Replicas } from '../src/clients/replicas';

/**
 * A replica that pauses or resumes registers anew before its old registration leaves, so discovery
 * can hear it twice for a moment; the admin service counts it once, in the state of its newer
 * registration.
 */

function info(id: string, instance: string, registration: string | undefined, paused: boolean): ServiceInfo {
  return {
    name: 'mop',
    id,
    version: '1.0.0',
    description: '',
    metadata: {
      instance,
      started: '2026-11-26T00:00:00.000Z',
      ...(paused ? { paused: 'true' } : {}),
      ...(registration === undefined ? {} : { registration }),
    },
    endpoints: paused ? [] : [{ name: 'run', subject: 'nap.rpc.mop.run', queue_group: 'mop' }],
  };
}

function busAnswering(infos: ServiceInfo[]): Bus {
  // only discovery is asked of the bus here
  return { discover: () => Promise.resolve(infos) } as unknown as Bus;
}

it('counts a replica heard from two registrations once, in the state of the newer one', async () => {
  const replicas = new Replicas(
    busAnswering([
      info('old-running', 'replica-a', '2', false),
      info('other', 'replica-b', '1', false),
      info('new-paused', 'replica-a', '3', true),
    ]),
  );
  const found = await replicas.discover('mop');
  expect(found.map((r) => [r.instance, r.id, r.state])).toEqual([
    ['replica-b', 'other', 'running'],
    ['replica-a', 'new-paused', 'paused'],
  ]);
});

it('keeps the newer registration whichever order the answers arrive in', async () => {
  const replicas = new Replicas(busAnswering([info('new-running', 'replica-a', '10', false), info('old-paused', 'replica-a', '9', true)]));
  expect((await replicas.discover('mop')).map((r) => [r.id, r.state])).toEqual([['new-running', 'running']]);
});

it('still lists a replica whose registration carries no number', async () => {
  const replicas = new Replicas(busAnswering([info('legacy', 'replica-a', undefined, false)]));
  expect((await replicas.discover('mop')).map((r) => r.id)).toEqual(['legacy']);
});
