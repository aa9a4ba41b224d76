/** What `/health/status` looks at: the bus, this service's store and every application. */
export interface PlatformFacts {
  busKind: string;
  busConnected: boolean;
  storeKind: string;
  storeUp: boolean;
  /** Empty when the bus is down: nothing can be asked then. */
  applications: { name: string; state: string }[];
  /** Epoch ms. */
  now: number;
}

/** `/health/status`: `running` when the bus, the store and every application answer, `degraded` otherwise. */
export function healthStatus(facts: PlatformFacts) {
  const { applications } = facts;
  const appsRunning = applications.length > 0 && applications.every((a) => a.state === 'RUNNING');
  const running = facts.busConnected && facts.storeUp && appsRunning;
  return {
    status: running ? ('running' as const) : ('degraded' as const),
    timestamp: facts.now,
    services: [
      { service: `bus (${facts.busKind})`, status: facts.busConnected ? 'running' : 'stopped' },
      { service: `store (${facts.storeKind})`, status: facts.storeUp ? 'running' : 'stopped' },
    ],
    apps: appsRunning ? 'running' : 'degraded',
    applications: applications.map((a) => ({ name: a.name, state: a.state })),
  };
}
