/**
 * Scenario 6: distributed with two gateways. A token is used on both (so both have its session
 * cached), then the session is ended by a logout on the first; the second must refuse the token
 * too. The time until it does is printed for several rounds (goal: within 1 s). A token that the
 * second gateway still accepts after its session cache would have expired anyway (a minute) means
 * the revocation was lost: that fails.
 */
import { sleep } from '@nap/util';
import { figure, quantile } from './support/figures';
import { Client, Distributed, dataDirectory, progress } from './support/platform';

const SCENARIO = '6 logout on one gateway, seen by the other';
const ROUNDS = 5;
/** The gateways resolve a session again at least once a minute: a revocation not honoured by then was lost. */
const LOST_AFTER_MS = 65_000;

const data = dataDirectory('logout');
let platform: Distributed;

afterAll(async () => {
  await platform?.stop();
  data.remove();
});

it('a logout on one gateway is honoured by every gateway', async () => {
  platform = await Distributed.start(data.dir, { gateways: 2 });
  const [first, second] = platform.gateways;
  if (first === undefined || second === undefined) throw new Error('two gateways were not started');

  const propagation: number[] = [];
  const statuses: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const a = new Client(first.client.url);
    const token = await a.login();
    const b = new Client(second.client.url, token);
    // both gateways have the session in their cache
    expect((await a.request('GET', '/whoami')).status).toBe(200);
    expect((await b.request('GET', '/whoami')).status).toBe(200);
    const logout = await a.request('GET', '/logout');
    statuses.push(logout.status);
    const loggedOutAt = performance.now();
    expect((await a.request('GET', '/whoami')).status).toBe(401);
    // a measurement, not a wait: how long the second gateway takes, at 10 ms resolution; a revocation
    // not honoured within LOST_AFTER_MS is a figure (lost), and any other answer fails at once
    let refusedAfter = NaN;
    while (performance.now() - loggedOutAt < LOST_AFTER_MS) {
      const res = await b.request('GET', '/whoami');
      if (res.status === 401) {
        refusedAfter = performance.now() - loggedOutAt;
        break;
      }
      if (res.status !== 200) throw new Error(`GET /whoami on the second gateway answered ${res.status} ${JSON.stringify(res.body)}`);
      await sleep(10);
    }
    propagation.push(refusedAfter);
    progress(`scenario 6: round ${round + 1}: the second gateway refused the token ${refusedAfter.toFixed(0)} ms after the logout`);
  }

  const honoured = propagation.filter((ms) => Number.isFinite(ms));
  figure(SCENARIO, 'rounds (login, use on both, logout on one)', ROUNDS);
  figure(
    SCENARIO,
    'logout to refused by the other gateway, p50/max',
    `${quantile(honoured, 0.5).toFixed(0)} / ${honoured.length > 0 ? Math.max(...honoured).toFixed(0) : 'NaN'} ms`,
    '',
    '<= 1000 ms',
  );
  figure(SCENARIO, 'revocations lost (still accepted after a minute)', ROUNDS - honoured.length, '', '0');

  expect(statuses.every((s) => s >= 200 && s < 300)).toBe(true);
  expect(honoured).toHaveLength(ROUNDS);
  expect(platform.crashed()).toEqual([]);
});
