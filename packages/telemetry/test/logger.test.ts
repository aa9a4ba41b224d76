import { Writable } from 'node:stream';
import { SECRET_MASK } from '@nap/contracts';
import { createLogger, failureStreak } from '@nap/telemetry';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('logger redaction (the contracts secret policy)', () => {
  it('redacts every secret member at any depth, and key material under any name', () => {
    const out = capture();
    const logger = createLogger({ name: 't', level: 'info', destination: out.stream });
    const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----';
    logger.info(
      {
        device: {
          name: 'core-1',
          variables: {
            gw_ssh_private_key: pem,
            gw_ssh_passphrase: 'sec-pp',
            gw_http_password: 'sec-hp',
            gw_password: 'sec-p',
            gw_port: 22,
          },
        },
        ansible: { ansible_become_pass: 'sec-b', ansible_ssh_pass: 'sec-s', ansible_password: 'sec-a', ansible_user: 'netops' },
        deep: { a: { b: { c: { d: { secret: 'sec-s3', client_secret: 'sec-cs', token: 'sec-t', authorization: 'Bearer sec-x' } } } } },
        note: pem,
        passwordSet: true,
      },
      'hello',
    );
    const [line] = out.lines();
    const text = JSON.stringify(line);
    expect(text).not.toContain('sec-');
    expect(text).not.toContain('abc');
    expect(line).toMatchObject({
      msg: 'hello',
      device: {
        name: 'core-1',
        variables: {
          gw_ssh_private_key: SECRET_MASK,
          gw_ssh_passphrase: SECRET_MASK,
          gw_http_password: SECRET_MASK,
          gw_password: SECRET_MASK,
          gw_port: 22,
        },
      },
      ansible: { ansible_become_pass: SECRET_MASK, ansible_ssh_pass: SECRET_MASK, ansible_password: SECRET_MASK, ansible_user: 'netops' },
      deep: { a: { b: { c: { d: { secret: SECRET_MASK, client_secret: SECRET_MASK, token: SECRET_MASK, authorization: SECRET_MASK } } } } },
      note: SECRET_MASK,
      passwordSet: true,
    });
  });

  it('keeps errors readable: an err member is serialized with its message and stack', () => {
    const out = capture();
    const logger = createLogger({ name: 't', level: 'info', destination: out.stream });
    logger.error({ err: new Error('device "core-1" refused the login') }, 'failed');
    const [line] = out.lines();
    expect(line?.err).toMatchObject({ type: 'Error', message: 'device "core-1" refused the login' });
    expect(String((line?.err as { stack?: string }).stack)).toContain('logger.test');
  });
});

describe('failureStreak', () => {
  it('logs a streak of failures when it begins, as a reminder a while later, and when the task works again', () => {
    const out = capture();
    const logger = createLogger({ name: 't', level: 'info', destination: out.stream });
    let now = 1_000_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const streak = failureStreak(logger, 'Renewing the heartbeat', 60_000);
      streak.worked();
      for (let i = 0; i < 30; i += 1) {
        streak.failed(new Error('disk full'));
        now += 1_000;
      }
      now += 31_000;
      streak.failed(new Error('disk full'));
      streak.failed(new Error('disk full'));
      streak.worked();
      streak.worked();
      streak.failed(new Error('again'));
    } finally {
      clock.mockRestore();
    }
    expect(out.lines().map((l) => [l.level, l.msg, l.failures, l.failingMs ?? l.failedMs])).toEqual([
      [40, 'Renewing the heartbeat failed; it is tried again, and said once it works', undefined, undefined],
      [40, 'Renewing the heartbeat still fails', 31, 61_000],
      [30, 'Renewing the heartbeat works again', 32, 61_000],
      [40, 'Renewing the heartbeat failed; it is tried again, and said once it works', undefined, undefined],
    ]);
  });
});
