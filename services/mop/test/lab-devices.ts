import type { TestPlatform } from '@nap/standalone';
import type { CliSimulator } from '@nap/lab';

/**
 * Creates an inventory device for a lab simulator through the device gateway. Fails loudly (never
 * skips) when the device gateway does not create devices yet.
 */
export async function addSimulator(platform: TestPlatform, token: string, name: string, sim: CliSimulator): Promise<void> {
  const res = await platform.http('POST', '/gw/createInventoryDevice', {
    token,
    body: {
      name,
      variables: { gw_host: sim.host, gw_port: sim.port, gw_network_os: sim.deviceType, gw_user: sim.username, gw_password: sim.password },
    },
  });
  if (res.status === 501) {
    throw new Error(
      'POST /gw/createInventoryDevice answers 501: the gateway-devices service is not built yet, so mop cannot reach lab devices. These end-to-end tests need it.',
    );
  }
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`Creating inventory device "${name}" failed: ${res.status} ${JSON.stringify(res.body)}`);
}
