import type { OpenApiPeer } from '@nap/lab';

/** The periodic connection check of an adapter: seconds between checks, failures in a row before DEAD. */
export interface AdapterHealthcheck {
  intervalSeconds: number;
  failuresBeforeDead: number;
}

/**
 * An HTTP adapter as docs/integrations.md writes one (`@nap/adapter-http`, ServiceNow's Table API
 * under `/api/now`, basic authentication) against the lab's OpenAPI peer `peer`, its connection
 * checked at `/stats.do`; `password` is the peer's unless given.
 */
export function peerAdapter(
  name: string,
  peer: OpenApiPeer,
  { healthcheck, password = peer.password }: { healthcheck: AdapterHealthcheck; password?: string },
): Record<string, unknown> {
  return {
    name,
    type: 'Adapter',
    model: '@nap/adapter-http',
    properties: {
      id: name,
      type: 'HTTP',
      brokers: ['ticketing'],
      groups: [],
      properties: {
        server: { protocol: 'http', host: '127.0.0.1', port: peer.port, base_path: '/api/now' },
        authentication: { type: 'basic', username: peer.user, password },
        healthcheck: { path: '/stats.do', ...healthcheck },
      },
    },
  };
}
