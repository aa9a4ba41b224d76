import type { Express } from 'express';
import type { Bus } from '@nap/bus';

/**
 * `GET /health/live` (the process answers) and `GET /health/ready`: 200 once the bus is connected
 * and every required service answers discovery, 503 naming the bus state and the missing services
 * otherwise.
 */
export function mountHealth(app: Express, bus: Bus, requiredServices: readonly string[]): void {
  app.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/health/ready', async (_req, res) => {
    let found: string[] = [];
    if (bus.isConnected()) {
      try {
        found = [...new Set((await bus.discover(undefined, 500)).map((s) => s.name))];
      } catch {
        found = [];
      }
    }
    const missing = requiredServices.filter((name) => !found.includes(name));
    const ready = bus.isConnected() && missing.length === 0;
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not ready',
      bus: bus.isConnected() ? 'connected' : 'disconnected',
      services: found.sort(),
      missing,
    });
  });
}
