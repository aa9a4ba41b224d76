import { outcomeVerdict, templateOutcome } from './template-results';

/** A command template run read device by device (the review view, the console, nap devices check). */
describe("a template run's outcome", () => {
  it("reads a run's answer by device under the template's passRule, and nothing else as one", () => {
    const entry = (device: string, evaluated: string, result: boolean, rules: unknown[] = []) => ({
      device,
      evaluated,
      raw: evaluated,
      result,
      rules,
      response: 'out',
    });
    const answer = {
      name: 'any-uplink',
      all_pass_flag: false,
      result: true,
      commands_results: [
        entry('edge-1', 'show int Gi0/1', false, [
          { rule: 'up', eval: 'contains', severity: 'error', result: false },
          { rule: 'Gi', result: true },
        ]),
        entry('edge-1', 'show int Gi0/2', true),
        entry('edge-2', 'show int Gi0/1', false),
      ],
    };
    const read = templateOutcome(answer);
    expect(read?.devices.map((d) => [d.device, d.passed])).toEqual([
      ['edge-1', true],
      ['edge-2', false],
    ]);
    expect(read?.devices[0]?.commands[0]?.failedRules).toEqual([{ rule: 'up', eval: 'contains', severity: 'error' }]);
    expect(templateOutcome({ ...answer, all_pass_flag: true })?.devices[0]?.passed).toBe(false);
    expect(templateOutcome({ result: true })).toBeUndefined();
    expect(templateOutcome('text')).toBeUndefined();
  });

  it('is said in words: the one device named, both, all, or how many of how many failed', () => {
    const device = (name: string, passed: boolean) => ({ device: name, passed });
    expect(outcomeVerdict(undefined, [device('edge-1', true)])).toBe('passed on edge-1');
    expect(outcomeVerdict(false, [device('edge-1', false)])).toBe('failed on edge-1');
    expect(outcomeVerdict(true, [device('e1', true), device('e2', true)])).toBe('passed on both devices');
    expect(
      outcomeVerdict(
        true,
        [1, 2, 3].map((i) => device(`e${i}`, true)),
      ),
    ).toBe('passed on all 3 devices');
    expect(outcomeVerdict(false, [device('e1', true), device('e2', false)])).toBe('failed on 1 of 2 devices');
    expect(outcomeVerdict(undefined, [])).toBe('passed');
  });
});
