import { spawnSync } from 'node:child_process';
import { loadTemplateRendererConfig } from '../src';

/** The Python the renderer uses here (`NAP_PYTHON`, else Debian's /usr/bin/python3). */
export const PYTHON = loadTemplateRendererConfig().python;

/** Why the template tests cannot run here, or undefined when Python has jinja2 and textfsm. */
function pythonProblem(): string | undefined {
  const probe = spawnSync(PYTHON, ['-I', '-c', 'import jinja2, textfsm'], { encoding: 'utf8' });
  if (probe.error !== undefined) return `${PYTHON} cannot be run (${probe.error.message})`;
  if (probe.status !== 0) return `${PYTHON} lacks jinja2 or textfsm: ${probe.stderr.trim().split('\n').pop() ?? ''}`;
  return undefined;
}

const problem = pythonProblem();

/**
 * `describe` for tests that need the real Python Jinja2 and TextFSM. Where they are missing the
 * suite says so loudly and, under CI=true, fails.
 */
export function describeWithPython(name: string, body: () => void): void {
  if (problem === undefined) {
    describe(name, body);
    return;
  }
  describe(name, () => {
    it('needs Python 3 with jinja2 and textfsm (apt-get install python3-jinja2 python3-textfsm, or set NAP_PYTHON)', () => {
      const message = `TEMPLATE TESTS NOT RUN: ${problem}. Install the Debian packages python3-jinja2 and python3-textfsm, or point NAP_PYTHON at a Python that has them.`;
      if (process.env.CI === 'true') throw new Error(message);
      console.warn(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`);
      expect(problem).toBeDefined();
    });
  });
}

/**
 * Runs `script` with the reference Python (plain `jinja2` / `textfsm`, no NAP code), `input` as JSON
 * on stdin; answers what the script prints as JSON. The expected values of conformance tests.
 */
export function referencePython(script: string, input: unknown): unknown {
  const run = spawnSync(PYTHON, ['-I', '-c', script], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`The reference Python failed: ${run.error?.message ?? run.stderr}`);
  return JSON.parse(run.stdout) as unknown;
}
