import { Client } from 'ssh2';
import type { ClientCallback, ClientChannel } from 'ssh2';
import { startNetconfLab } from '@nap/lab';
import type { NetconfLab } from '@nap/lab';
import { createNetconfSession, withNetconfSession } from '../src/clients/netconf-client';
import type { NetconfOptions, NetconfSession } from '../src/clients/netconf-client';
import { NETCONF_BASE_1_1 } from '../src/domain/netconf-xml';
import { createMemoryKnownHostsStore } from '../src/store/known-hosts-repository';
import { expectAppError } from './helpers';

jest.setTimeout(90_000);

// Starting the lab may install openssh-server and netconfd on a clean machine (apt-get).
const SETUP_TIMEOUT_MS = 10 * 60_000;
const SYSTEM_NS = 'urn:ietf:params:xml:ns:yang:ietf-system';

/**
 * Makes the channel deliver the client's hello together with its first RPC, as a loaded agent
 * reads them when both arrive before it gets to read the hello.
 */
function holdHelloUntilFirstRpc(channel: ClientChannel): void {
  const write = channel.write.bind(channel);
  let hello: string | undefined;
  let sentBoth = false;
  channel.write = ((chunk: string) => {
    if (hello === undefined && chunk.includes('<hello')) {
      hello = chunk;
      return true;
    }
    if (hello !== undefined && !sentBoth) {
      sentBoth = true;
      return write(hello + chunk);
    }
    return write(chunk);
  }) as ClientChannel['write'];
}

describe('NETCONF client against yuma123 netconfd', () => {
  let lab: NetconfLab;
  let target: NetconfOptions;
  let session: NetconfSession;

  beforeAll(async () => {
    lab = await startNetconfLab();
    target = {
      deviceName: 'lab-netconf',
      host: lab.sshd.host,
      port: lab.sshd.port,
      username: lab.sshd.username,
      password: lab.sshd.password,
      knownHosts: createMemoryKnownHostsStore(),
      // netconfd is one process behind sshd and PAM: on a loaded 2-core CI machine it can be slow
      readyTimeoutMs: 30_000,
      rpcTimeoutMs: 30_000,
    };
    session = createNetconfSession(target);
    await session.connect();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await session?.close();
    await lab?.stop();
  });

  it('exchanges hellos and switches to base:1.1 chunked framing', () => {
    expect(session.capabilities()).toContain(NETCONF_BASE_1_1);
    expect(session.hasCapability('urn:ietf:params:netconf:capability:candidate:1.0')).toBe(true);
    expect(session.framing()).toBe('chunked');
    expect(session.sessionId()).toMatch(/^\d+$/);
  });

  it('gets the running configuration', async () => {
    const data = await session.getConfig({ source: 'running' });
    expect(data).toContain('<nacm xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-acm">');
  });

  it('edits the candidate under a lock, commits, and reads the change back with a filter', async () => {
    await session.editConfig({
      config: `<system xmlns="${SYSTEM_NS}"><contact>noc@nap.example</contact><location>lab rack 7</location></system>`,
      defaultOperation: 'merge',
      lock: true,
    });
    const data = await session.getConfig({ source: 'running', filter: `<system xmlns="${SYSTEM_NS}"/>` });
    expect(data).toMatch(/<contact>noc@nap\.example<\/contact>/);
    expect(data).toMatch(/<location>lab rack 7<\/location>/);
    expect(data).not.toContain('nacm');
    // The lock was released: another session can take it.
    await withNetconfSession(target, async (other) => {
      await other.lock('candidate');
      await other.unlock('candidate');
    });
  });

  it('answers <get> with state data', async () => {
    const data = await session.get({
      filter: '<netconf-state xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring"><sessions/></netconf-state>',
    });
    expect(data).toContain('<session-id>');
  });

  it('turns an rpc-error into DEVICE_COMMAND_FAILED naming error-tag and error-message', async () => {
    const err = await expectAppError(session.rpc('<frobnicate xmlns="urn:example:nap"/>'), 'DEVICE_COMMAND_FAILED');
    expect(err.message).toBe(
      'device "lab-netconf" (127.0.0.1:' +
        String(lab.sshd.port) +
        ') answered NETCONF <frobnicate> with rpc-error unknown-namespace: unknown namespace',
    );
    expect(err.details).toMatchObject({ operation: 'frobnicate', errors: [{ type: 'rpc', tag: 'unknown-namespace', severity: 'error' }] });
    // The session is still usable after an rpc-error.
    await expect(session.getConfig()).resolves.toContain('nacm');
  });

  it('reports a datastore the agent does not have', async () => {
    const err = await expectAppError(session.getConfig({ source: 'startup' }), 'DEVICE_COMMAND_FAILED');
    expect(err.message).toContain('rpc-error');
  });

  // yuma123 netconfd holds an RPC that reaches it in the same read as the client's hello until more
  // input arrives; the client's probe after its first RPC is that input (before, the RPC timed out).
  it('answers the first RPC even when the agent reads it together with the hello', async () => {
    const subsys = Client.prototype.subsys;
    const spy = jest.spyOn(Client.prototype, 'subsys').mockImplementation(function (this: Client, name: string, callback: ClientCallback) {
      return subsys.call(this, name, (err, channel) => {
        if (err === undefined) holdHelloUntilFirstRpc(channel);
        callback(err, channel);
      });
    });
    try {
      await expect(withNetconfSession({ ...target, rpcTimeoutMs: 10_000 }, (s) => s.getConfig())).resolves.toContain('nacm');
    } finally {
      spy.mockRestore();
    }
  });

  it('speaks base:1.0 end-of-message framing when only 1.0 is offered', async () => {
    await withNetconfSession({ ...target, baseVersions: ['1.0'] }, async (s) => {
      expect(s.framing()).toBe('eom');
      await expect(s.getConfig()).resolves.toContain('nacm');
      // the marker would end the message there: what follows would be an RPC of its own
      const refused = await expectAppError(
        s.rpc('<get-config><source><running/></source><filter type="subtree"><a b="]]>]]>"/></filter></get-config>'),
        'VALIDATION_FAILED',
      );
      expect(refused.message).toMatch(/end-of-message marker/);
      await expect(s.getConfig()).resolves.toContain('nacm');
    });
  });

  it('ends a session whose agent sends a message longer than the bound, naming it', async () => {
    const ended = await expectAppError(
      withNetconfSession({ ...target, maxMessageBytes: 100 }, (s) => s.getConfig()),
      'UPSTREAM_FAILED',
    );
    expect(ended.message).toMatch(/longer than 100 bytes/);
  });
});
