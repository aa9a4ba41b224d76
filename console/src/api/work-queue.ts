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

/**
 * How many manual tasks wait for a person (the header's count beside Tasks): the platform's total,
 * one task asked for; task events refresh it with the queue.
 */
export function useWaitingCount(enabled: boolean): number | undefined {
  const count = useQuery({
    queryKey: ['tasks', 'waiting', 'count'],
    queryFn: () => nap.tasks({ q: WAITING, limit: 1 }),
    enabled,
    select: (page) => page.metadata.total,
  });
  return count.data;
}
