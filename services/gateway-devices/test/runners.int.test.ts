import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import { SECRET_MASK, addSecretTexts, isAppError, noSecrets, secretMask } from '@nap/contracts';
import { ensureLabPackages } from '@nap/lab';
import { runProcess } from '../src/clients/process-run';
import { startGatewayPlatform } from './platform';
import type { GatewayPlatform } from './platform';

// Installing ansible-core (apt-get) on a clean machine takes longer than a test.
const SETUP_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 120_000;

let gw: GatewayPlatform;

type Outcome = {
  status: string;
  name: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  result?: unknown;
};

async function file(p: string, text: string, mode = 0o644): Promise<void> {
  await mkdir(path.dirname(p), { recursive: true });
  await writeFile(p, text);
  await chmod(p, mode);
}

const NEW_STYLE_MODULE = (name: string) => `#!/usr/bin/python3
# ${name}: echoes its message, as a device module would answer
from ansible.module_utils.basic import AnsibleModule

def main():
    module = AnsibleModule(argument_spec=dict(message=dict(type='str', required=True)))
    module.exit_json(changed=False, echoed=module.params['message'].upper())

if __name__ == '__main__':
    main()
`;

beforeAll(async () => {
  await ensureLabPackages(['ansible-core']);
  gw = await startGatewayPlatform();
  const d = gw.dirs;
  await file(path.join(d.scripts, 'hello.sh'), '#!/bin/sh\n# Greets the arguments\necho "args: $*"\necho "site: ${SITE:-none}"\n', 0o755);
  await file(path.join(d.scripts, 'tools/fail.sh'), 'echo "about to fail" >&2\nexit 3\n');
  await file(path.join(d.scripts, 'slow.sh'), '#!/bin/sh\nsleep 30\n', 0o755);
  await file(path.join(d.scripts, 'report.py'), 'import json, sys\nprint(json.dumps({"argv": sys.argv[1:]}))\n');
  await file(path.join(d.scripts, 'leak.sh'), '#!/bin/sh\necho "env=$DEVICE_PASSWORD args=$*"\necho "err=$DEVICE_PASSWORD" >&2\n', 0o755);
  // the secret, then 3990 characters: a RUNNER_TIMEOUT error keeps the last 4000, whose cut falls inside it
  await file(
    path.join(d.scripts, 'leak-slow.sh'),
    '#!/bin/sh\nprintf "start %s " "$SNMP_COMMUNITY"\nprintf "%03990d" 0\nsleep 30\n',
    0o755,
  );
  await symlink('/etc/passwd', path.join(d.scripts, 'escape.sh'));
  await file(
    path.join(d.runnerModules, 'echo.py'),
    '#!/usr/bin/env python3\nimport json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({"echoed": args["token"]}))\n',
    0o755,
  );
  await file(
    path.join(d.runnerModules, 'sum.py'),
    '#!/usr/bin/env python3\nimport json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({"sum": sum(args["numbers"])}))\n',
    0o755,
  );
  await file(
    path.join(d.playbooks, 'site.yml'),
    '- name: NAP lab play\n  hosts: localhost\n  gather_facts: false\n  tasks:\n    - name: say\n      debug:\n        msg: "hello {{ who | default(\'nobody\') }}"\n    - name: touch\n      command: /bin/true\n',
  );
  await file(path.join(d.modules, 'nap_echo.py'), NEW_STYLE_MODULE('nap_echo'));
  await file(path.join(d.roles, 'greet/tasks/main.yml'), '- name: greet\n  debug:\n    msg: "greetings {{ greeting }}"\n');
  const coll = path.join(d.collections, 'ansible_collections/naplab/tools');
  await file(path.join(coll, 'galaxy.yml'), 'namespace: naplab\nname: tools\nversion: 1.0.0\n');
  await file(path.join(coll, 'plugins/modules/shout.py'), NEW_STYLE_MODULE('shout'));
  await file(path.join(coll, 'roles/wave/tasks/main.yml'), '- name: wave\n  debug:\n    msg: "wave {{ to }}"\n');
  await file(
    path.join(d.iac, 'probe/main.tf'),
    '# A local-only module: terraform_data needs no provider download\nvariable "label" {\n  type    = string\n  default = "none"\n}\nresource "terraform_data" "probe" {\n  input = var.label\n}\noutput "label" {\n  value = terraform_data.probe.output\n}\n',
  );
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gw?.stop();
});

describe('scripts from the configured directory', () => {
  it('discovers scripts and shows one', async () => {
    const list = await gw.call<{ results: { name: string; description: string }[] }>('getScripts', {});
    // The symbolic link leading out of the directory is not listed.
    expect(list.results.map((s) => s.name)).toEqual(['hello.sh', 'leak-slow.sh', 'leak.sh', 'report.py', 'slow.sh', 'tools/fail.sh']);
    expect(list.results.find((s) => s.name === 'hello.sh')?.description).toBe('Greets the arguments');
    expect(await gw.call('getScript', { name: 'hello.sh' })).toMatchObject({
      name: 'hello.sh',
      content: expect.stringContaining('echo "args: $*"') as unknown,
    });
  });

  it('runs with arguments and environment: output, exit status, duration', async () => {
    const run = await gw.call<Outcome>('runScript', { name: 'hello.sh', args: ['a', 'b c'] });
    expect(run).toMatchObject({ status: 'success', exitCode: 0, stdout: 'args: a b c\nsite: none\n', timedOut: false });
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
    const env = await gw.call<Outcome>('runScriptEnv', { name: 'hello.sh', args: { dry: true }, env: { SITE: 'lab-7' } });
    expect(env.stdout).toBe('args: --dry=true\nsite: lab-7\n');
    const failed = await gw.call<Outcome>('runScript', { name: 'tools/fail.sh' });
    expect(failed).toMatchObject({ status: 'error', exitCode: 3, stderr: 'about to fail\n' });
    const json = await gw.call<Outcome>('runScript', { name: 'report.py', args: ['x'] });
    expect(json.result).toEqual({ argv: ['x'] });
  });

  it('stops a run at its time limit with 504 RUNNER_TIMEOUT', async () => {
    const started = Date.now();
    expect(await gw.callError('runScript', { name: 'slow.sh', timeout: 0.5 })).toMatchObject({ code: 'RUNNER_TIMEOUT', status: 504 });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses anything outside the directory (400 RUNNER_PATH_REFUSED) and answers 404 for the unknown', async () => {
    expect(await gw.callError('runScript', { name: '../../../../etc/passwd' })).toMatchObject({ code: 'RUNNER_PATH_REFUSED', status: 400 });
    expect(await gw.callError('runScript', { name: '/bin/sh' })).toMatchObject({ code: 'RUNNER_PATH_REFUSED' });
    expect(await gw.callError('runScript', { name: 'escape.sh' })).toMatchObject({ code: 'RUNNER_PATH_REFUSED' });
    expect(await gw.callError('getScript', { name: 'escape.sh' })).toMatchObject({ code: 'RUNNER_PATH_REFUSED' });
    expect(await gw.callError('runScript', { name: 'nothing.sh' })).toMatchObject({ code: 'RUNNER_NOT_FOUND', status: 404 });
    expect(await gw.callError('runPlaybook', { name: '../scripts/hello.sh' })).toMatchObject({ code: 'RUNNER_PATH_REFUSED' });
  });

  it('runs a runner module with its arguments as JSON on stdin', async () => {
    expect((await gw.call<{ results: { name: string }[] }>('getRunnerModules', {})).results.map((m) => m.name)).toEqual([
      'echo.py',
      'sum.py',
    ]);
    expect(await gw.call('runRunnerModule', { name: 'sum.py', args: { numbers: [1, 2, 3] } })).toMatchObject({
      status: 'success',
      result: { sum: 6 },
    });
  });
});

describe('secrets given to scripts and runner modules', () => {
  it('are masked in what a run gives: arguments and environment with secret names, options of an argument list', async () => {
    const [envPw, argPw, listToken, joinedSecret, moduleToken] = [
      'env-Pa55-never-shown',
      'arg-Pa55-never-shown',
      'list-Tok-never-shown',
      'joined-Sec-never-shown',
      'mod-Tok-never-shown',
    ];
    const env = await gw.call<Outcome>('runScriptEnv', { name: 'leak.sh', args: { password: argPw }, env: { DEVICE_PASSWORD: envPw } });
    expect(env).toMatchObject({ stdout: `env=${SECRET_MASK} args=--password=${SECRET_MASK}\n`, stderr: `err=${SECRET_MASK}\n` });
    const list = await gw.call<Outcome>('runScript', {
      name: 'leak.sh',
      args: ['--token', listToken, `--api-secret=${joinedSecret}`, 'plain'],
    });
    expect(list.stdout).toBe(`env= args=--token ${SECRET_MASK} --api-secret=${SECRET_MASK} plain\n`);
    const module = await gw.call<Outcome>('runRunnerModule', { name: 'echo.py', args: { token: moduleToken } });
    expect(module).toMatchObject({ status: 'success', result: { echoed: SECRET_MASK } });
    const seen = JSON.stringify([env, list, module]) + gw.logs();
    for (const secret of [envPw, argPw, listToken, joinedSecret, moduleToken]) expect(seen).not.toContain(secret);
  });

  it('are masked in the output a RUNNER_TIMEOUT error keeps, before it is cut', async () => {
    const community = 'comm-Secret-never-shown';
    const err = await gw.callError('runScriptEnv', { name: 'leak-slow.sh', env: { SNMP_COMMUNITY: community }, timeout: 0.5 });
    expect(err).toMatchObject({ code: 'RUNNER_TIMEOUT', status: 504 });
    const { stdout } = err.details as { stdout: string };
    // the 4000 characters kept start 9 characters before the secret's end: it was masked first
    expect({ start: stdout.slice(0, 11), length: stdout.length }).toEqual({ start: ` ${SECRET_MASK} 0`, length: 4000 });
    expect(JSON.stringify(err) + gw.logs()).not.toContain(community.slice(-6));
  });
});

describe('output cut by the run limits (runProcess)', () => {
  const secret = 'cut-Secret-4b9f27d1e0';
  const accented = 'pässwort-7c1e9a55';
  const mask = secretMask(addSecretTexts(noSecrets(), secret, accented));
  const sh = (script: string, maxOutputBytes: number, timeoutMs = RUN_TIMEOUT_MS) =>
    runProcess({
      name: 'probe',
      command: '/bin/sh',
      args: ['-c', script],
      cwd: os.tmpdir(),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutMs,
      maxOutputBytes,
      mask,
    });
  const bs = (n: number): string => 'b'.repeat(n);

  it('masks a secret whose start the output cap dropped; an end too short to search for is dropped', async () => {
    // the last 10 characters of the secret are kept
    const cut = await sh(`printf '%s' 'aaa${secret}${bs(90)}'`, 100);
    expect(cut.stdout).toBe(`[output truncated]\n${`${SECRET_MASK}${bs(90)}`.slice(3)}`);
    // its last 2 only: no mask looks for so few, the first 3 characters go
    const short = await sh(`printf '%s' 'aaa${secret}${bs(98)}'`, 100);
    expect(short.stdout).toBe(`[output truncated]\n${bs(97)}`);
    // a cut inside a character (ä is 2 bytes): the kept end starts at the next one
    const split = await sh(`printf '%s' 'aaa${accented}${bs(80)}'`, Buffer.byteLength(accented.slice(1)) - 1 + 80);
    expect(split.stdout).toBe(`[output truncated]\n${`${SECRET_MASK}${bs(80)}`.slice(3)}`);
  });

  it('masks the rest of a private key whose BEGIN line the cap dropped', async () => {
    const key = `-----BEGIN OPENSSH PRIVATE KEY-----\n${'Q'.repeat(300)}\n-----END OPENSSH PRIVATE KEY-----\n`;
    const run = await sh(`printf '%s' '${key}after'`, 200);
    expect(run.stdout).toBe(`[output truncated]\n${`${SECRET_MASK}\nafter`.slice(3)}`);
  });

  it('masks the whole output before a RUNNER_TIMEOUT error keeps its last 4000 characters', async () => {
    const err: unknown = await sh(`printf '%s' 'aaa${secret}${bs(3994)}'; sleep 30`, 1_048_576, 300).catch((e: unknown) => e);
    expect(isAppError(err) && err.code).toBe('RUNNER_TIMEOUT');
    const { stdout } = (err as { details: { stdout: string } }).details;
    // the secret's last 6 characters were within the 4000 kept: masked, the cut falls inside the mask
    expect({ start: stdout.slice(0, 8), length: stdout.length }).toEqual({ start: `${SECRET_MASK.slice(-6)}bb`, length: 4000 });
    expect(stdout).not.toContain(secret.slice(-6));
  });

  it("masks the result parsed from the program's whole output", async () => {
    const run = await sh(`printf '{"echo": "%s"}' '${secret}'`, 1_048_576);
    expect(run).toMatchObject({ stdout: `{"echo": "${SECRET_MASK}"}`, result: { echo: SECRET_MASK } });
  });
});

describe('Ansible playbooks, modules, roles and collections', () => {
  it('discovers them', async () => {
    expect((await gw.call<{ results: { name: string; description: string }[] }>('getPlaybooks', {})).results).toEqual([
      { name: 'site.yml', path: 'site.yml', description: 'NAP lab play' },
    ]);
    expect((await gw.call<{ results: { name: string }[] }>('getModules', {})).results.map((m) => m.name)).toEqual(['nap_echo']);
    expect((await gw.call<{ results: { name: string }[] }>('getRoles', {})).results.map((m) => m.name)).toEqual(['greet']);
    expect((await gw.call<{ results: { name: string }[] }>('getCollections', {})).results.map((m) => m.name)).toEqual(['naplab.tools']);
    expect(
      (await gw.call<{ results: { name: string }[] }>('getCollectionModules', { collection: 'naplab.tools' })).results.map((m) => m.name),
    ).toEqual(['naplab.tools.shout']);
    expect(
      (await gw.call<{ results: { name: string }[] }>('getCollectionRoles', { collection: 'naplab.tools' })).results.map((m) => m.name),
    ).toEqual(['naplab.tools.wave']);
    expect(await gw.call('getCollectionModule', { collection: 'naplab.tools', name: 'shout' })).toMatchObject({
      name: 'naplab.tools.shout',
    });
    expect(await gw.call('getRole', { name: 'greet' })).toMatchObject({ files: ['tasks/main.yml'] });
    await file(path.join(gw.dirs.playbooks, 'later.yml'), '- hosts: localhost\n  tasks: []\n');
    expect((await gw.call<{ results: unknown[] }>('refreshPlaybooks', {})).results).toHaveLength(2);
  });

  it(
    'runs a playbook with extra variables, and in check mode',
    async () => {
      const run = await gw.call<
        Outcome & {
          result: {
            stats: Record<string, { ok: number; failures: number }>;
            plays: { tasks: { hosts: Record<string, { msg?: string }> }[] }[];
          };
        }
      >('runPlaybook', { name: 'site.yml', args: { who: 'nap' } });
      expect(run).toMatchObject({ status: 'success', exitCode: 0 });
      expect(run.result.stats.localhost).toMatchObject({ ok: 2, failures: 0 });
      expect(run.result.plays[0]?.tasks[0]?.hosts.localhost?.msg).toBe('hello nap');
      const dry = await gw.call<Outcome & { result: { stats: Record<string, { skipped: number }> } }>('dryRunPlaybook', {
        name: 'site.yml',
      });
      expect(dry.status).toBe('success');
      // command tasks do not run in check mode.
      expect(dry.result.stats.localhost?.skipped).toBe(1);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'runs a module, a role, a collection module and a collection role on localhost',
    async () => {
      const mod = await gw.call<Outcome>('runModule', { name: 'nap_echo', args: { message: 'hi there' } });
      expect(mod).toMatchObject({ status: 'success', exitCode: 0 });
      expect(mod.stdout).toContain('HI THERE');
      const role = await gw.call<Outcome>('runRole', { name: 'greet', args: { greeting: 'from nap' } });
      expect(role.status).toBe('success');
      expect(role.stdout).toContain('greetings from nap');
      const cmod = await gw.call<Outcome>('runCollectionModule', { collection: 'naplab.tools', name: 'shout', args: { message: 'loud' } });
      expect(cmod.stdout).toContain('LOUD');
      const crole = await gw.call<Outcome>('runCollectionRole', { collection: 'naplab.tools', name: 'wave', args: { to: 'the lab' } });
      expect(crole.stdout).toContain('wave the lab');
      const missing = await gw.call<Outcome>('runModule', { name: 'nap_echo', args: {} });
      expect(missing).toMatchObject({ status: 'error' });
      expect(missing.exitCode).not.toBe(0);
    },
    RUN_TIMEOUT_MS,
  );
});

describe('what a device writer or a run caller gives Ansible runs nothing on the platform host', () => {
  it(
    'device variables, extra variables, role variables and module arguments are text, never templates; host-side variables and option-like hosts are dropped',
    async () => {
      const marker = (n: string) => path.join(gw.dataDir, `pwned-${n}`);
      const pipe = (n: string) => `{{ lookup('pipe', 'touch ${marker(n)}') }}`;
      await file(
        path.join(gw.dirs.playbooks, 'show.yml'),
        "- hosts: all\n  gather_facts: false\n  tasks:\n    - debug:\n        msg: \"note={{ note | default('-') }} who={{ who | default('-') }}\"\n",
      );
      await file(
        path.join(gw.dirs.playbooks, 'name.yml'),
        '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug:\n        msg: "host={{ inventory_hostname }}"\n',
      );
      const device = await gw.http('POST', '/gw/createInventoryDevice', {
        name: 'ans-victim',
        variables: {
          gw_connection: 'local',
          note: pipe('device-var'),
          ansible_python_interpreter: `/bin/sh -c 'touch ${marker('interpreter')}'; exec python3`,
          ansible_ssh_extra_args: `-o ProxyCommand='touch ${marker('proxy')}'`,
          ansible_paramiko_host_key_checking: false,
        },
      });
      expect(device.status).toBe(200);
      // a device named as a template is left out of the inventory: Ansible templates host names
      expect(
        (await gw.http('POST', '/gw/createInventoryDevice', { name: pipe('device-name'), variables: { gw_connection: 'local' } })).status,
      ).toBe(200);
      const all = await gw.call<Outcome>('runPlaybook', { name: 'name.yml', hosts: ['all'] });
      expect(all).toMatchObject({ status: 'success', exitCode: 0 });
      expect(all.stdout).toContain('host=ans-victim');
      const play = await gw.call<Outcome>('runPlaybook', { name: 'show.yml', hosts: ['ans-victim'], args: { who: pipe('extra-var') } });
      expect(play).toMatchObject({ status: 'success', exitCode: 0 });
      expect(play.stdout).toContain(`note=${pipe('device-var')}`);
      expect(play.stdout).toContain(`who=${pipe('extra-var')}`);
      const mod = await gw.call<Outcome>('runModule', { name: 'nap_echo', args: { message: pipe('module-arg') } });
      expect(mod).toMatchObject({ status: 'success', exitCode: 0 });
      expect(mod.stdout).toContain("LOOKUP('PIPE'");
      const role = await gw.call<Outcome>('runRole', { name: 'greet', args: { greeting: pipe('role-var') } });
      expect(role).toMatchObject({ status: 'success' });
      expect(role.stdout).toContain(`greetings ${pipe('role-var')}`);
      // a host named as an option is a pattern that matches nothing, not --vault-password-file
      await file(marker('vault.sh'), `#!/bin/sh\ntouch ${marker('vault')}\necho x\n`, 0o755);
      const option = await gw.call<Outcome>('runModule', {
        name: 'nap_echo',
        args: { message: 'x' },
        hosts: [`--vault-password-file=${marker('vault.sh')}`],
      });
      expect(option.stdout).not.toContain('X');
      for (const n of ['device-name', 'device-var', 'extra-var', 'module-arg', 'role-var', 'interpreter', 'proxy', 'vault'])
        expect({ n, exists: existsSync(marker(n)) }).toEqual({ n, exists: false });
    },
    RUN_TIMEOUT_MS,
  );
});

describe('device secrets in Ansible runs', () => {
  it(
    "are masked in a run's output and result, for every device of the inventory (a play can print any host's variables)",
    async () => {
      const password = 'ans-Pa55word-never-shown';
      const become = 'ans-become-never-shown';
      await file(
        path.join(gw.dirs.playbooks, 'leak.yml'),
        "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug:\n        msg: \"pw={{ hostvars['ans-secret'].ansible_password }} become={{ hostvars['ans-secret'].ansible_become_password }}\"\n    - command: /bin/false\n",
      );
      const device = await gw.http('POST', '/gw/createInventoryDevice', {
        name: 'ans-secret',
        variables: { gw_connection: 'local', gw_password: password, gw_become_pass: become },
      });
      expect(device.status).toBe(200);
      const run = await gw.call<Outcome & { result: { plays: { tasks: { hosts: Record<string, { msg?: string }> }[] }[] } }>(
        'runPlaybook',
        { name: 'leak.yml' },
      );
      expect(run).toMatchObject({ status: 'error', exitCode: 2 });
      expect(run.result.plays[0]?.tasks[0]?.hosts.localhost?.msg).toBe(`pw=${SECRET_MASK} become=${SECRET_MASK}`);
      expect(run.stdout).toContain(`pw=${SECRET_MASK} become=${SECRET_MASK}`);
      const seen = JSON.stringify(run) + gw.logs();
      expect(seen).not.toContain(password);
      expect(seen).not.toContain(become);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "masks a role's secret variables, which the generated play holds rather than the run's arguments",
    async () => {
      const token = 'role-Tok-never-shown';
      await file(path.join(gw.dirs.roles, 'whisper/tasks/main.yml'), '- name: whisper\n  debug:\n    msg: "said {{ api_token }}"\n');
      const run = await gw.call<Outcome>('runRole', { name: 'whisper', args: { api_token: token } });
      expect(run).toMatchObject({ status: 'success' });
      expect(run.stdout).toContain(`said ${SECRET_MASK}`);
      expect(JSON.stringify(run) + gw.logs()).not.toContain(token);
    },
    RUN_TIMEOUT_MS,
  );
});

describe('key files of devices in Ansible runs', () => {
  it(
    'Ansible reads a copy of a key of the key directory; a targeted device whose key lies elsewhere refuses the run, naming NAP_SSH_KEY_DIR',
    async () => {
      const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-checked-here\n-----END OPENSSH PRIVATE KEY-----\n';
      await file(path.join(gw.sshKeyDir, 'lab-key'), key, 0o600);
      await file(
        path.join(gw.dirs.playbooks, 'keyfile.yml'),
        "- hosts: all\n  gather_facts: false\n  tasks:\n    - debug:\n        msg: \"key={{ ansible_ssh_private_key_file }} sha1={{ lookup('file', ansible_ssh_private_key_file) | hash('sha1') }}\"\n",
      );
      const keyed = await gw.http('POST', '/gw/createInventoryDevice', {
        name: 'keyed',
        variables: { gw_connection: 'local', gw_ssh_private_key_file: path.join(gw.sshKeyDir, 'lab-key') },
      });
      expect(keyed.status).toBe(200);
      // an inventory file of before the key directory: loaded, refused when a run needs its key
      const elsewhere = path.join(gw.dataDir, 'elsewhere-key');
      await file(elsewhere, key, 0o600);
      await writeFile(
        gw.inventoryFile,
        JSON.stringify({ all: { hosts: { 'legacy-keyed': { gw_connection: 'local', gw_ssh_private_key_file: elsewhere } } } }),
      );
      await gw.call('refreshInventory', {});

      const run = await gw.call<Outcome>('runPlaybook', { name: 'keyfile.yml', hosts: ['keyed'] });
      expect(run).toMatchObject({ status: 'success', exitCode: 0 });
      // key material in a run's output is masked: the copy read is compared by its digest
      const shown = /key=(\S+) sha1=([0-9a-f]{40})/.exec(run.stdout);
      expect(shown?.[2]).toBe(createHash('sha1').update(key.trimEnd()).digest('hex'));
      expect(shown?.[1]).not.toContain(gw.sshKeyDir);
      expect(run.stdout).not.toContain('legacy-keyed');

      const refused = await gw.callError('runPlaybook', { name: 'keyfile.yml', hosts: ['legacy-keyed'] });
      expect(refused).toMatchObject({ status: 422, code: 'DEVICE_CREDENTIALS_MISSING' });
      expect(refused.message).toContain(
        `gw_ssh_private_key_file of device "legacy-keyed" lies outside the key directory ${gw.sshKeyDir} (NAP_SSH_KEY_DIR)`,
      );
    },
    RUN_TIMEOUT_MS,
  );
});

describe('infrastructure as code (tofu or terraform on PATH)', () => {
  it(
    'inits, plans, applies with variables and destroys a local-only module',
    async () => {
      expect((await gw.call<{ results: { name: string }[] }>('getIacs', {})).results).toEqual([
        { name: 'probe', path: 'probe/', description: 'A local-only module: terraform_data needs no provider download' },
      ]);
      expect(await gw.call('getIac', { name: 'probe' })).toMatchObject({ files: ['main.tf'] });
      const init = await gw.call<Outcome>('initIac', { name: 'probe' });
      expect(init).toMatchObject({ status: 'success', exitCode: 0 });
      const plan = await gw.call<Outcome>('planIac', { name: 'probe', args: { label: 'planned' } });
      expect(plan.stdout).toContain('1 to add');
      const apply = await gw.call<Outcome>('applyIac', { name: 'probe', args: { label: 'applied' } });
      expect(apply).toMatchObject({ status: 'success', result: { label: { value: 'applied' } } });
      const destroy = await gw.call<Outcome>('destroyIac', { name: 'probe', args: { label: 'applied' } });
      expect(destroy.stdout).toContain('1 destroyed');
    },
    RUN_TIMEOUT_MS,
  );
});
