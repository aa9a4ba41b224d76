import { useQuery } from '@tanstack/react-query';
import { nap } from './nap';

/**
 * The work queue: manual tasks (type manual, or the engine's ViewData and ViewDiff) running in
 * jobs that are running or paused. The platform applies the caller's visibility.
 */
const WAITING = JSON.stringify({
  and: [
    { equals: { status: 'running' } },
    { in: { 'job.status': 'running,paused' } },
    { or: [{ equals: { type: 'manual' } }, { in: { name: 'ViewData,ViewDiff' } }] },
  ],
});

/** Every manual task waiting for a person that the caller may see; task events refresh it. */
export function useWorkQueue() {
  return useQuery({ queryKey: ['tasks', 'waiting'], queryFn: () => nap.tasks({ q: WAITING, limit: 500 }) });
}
