import { runServiceProcess } from '@nap/runtime';
import { createGatewayDevicesService } from './service';

runServiceProcess('gateway-devices', createGatewayDevicesService).catch((err: unknown) => {
  process.stderr.write(`nap-gateway-devices failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
