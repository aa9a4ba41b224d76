import { isSubsetPattern, isValidPattern, isValidSubject, subjectMatcher, subjectMatches } from './subject-match';

/** The rules as first written (split into tokens each time): what the walking versions must agree with. */
const reference = {
  isValidSubject(subject: string): boolean {
    if (subject.length === 0 || /\s/.test(subject)) return false;
    return subject.split('.').every((token) => token.length > 0 && token !== '*' && token !== '>');
  },
  subjectMatches(pattern: string, subject: string): boolean {
    const p = pattern.split('.');
    const s = subject.split('.');
    for (let i = 0; i < p.length; i++) {
      const token = p[i];
      if (token === '>') return s.length > i;
      if (i >= s.length) return false;
      if (token !== '*' && token !== s[i]) return false;
    }
    return p.length === s.length;
  },
  isSubsetPattern(filter: string, pattern: string): boolean {
    const f = filter.split('.');
    const p = pattern.split('.');
    for (let i = 0; i < p.length; i++) {
      const token = p[i];
      if (token === '>') return f.length > i;
      const ft = f[i];
      if (ft === undefined || ft === '>') return false;
      if (token === '*') continue;
      if (ft === '*' || ft !== token) return false;
    }
    return f.length === p.length;
  },
};

/** Every string of up to `length` tokens drawn from `tokens`, joined by dots (and a few odd ones). */
function subjects(tokens: string[], length: number): string[] {
  let level = [''];
  const out = new Set<string>(['', '.', '..', 'a.', '.a', 'a b', 'a.\tb', '>.a', 'a.>.b', '*']);
  for (let n = 1; n <= length; n++) {
    level = level.flatMap((prefix) => tokens.map((t) => (n === 1 ? t : `${prefix}.${t}`)));
    for (const s of level) out.add(s);
  }
  return [...out];
}

describe('subject rules', () => {
  const all = subjects(['a', 'b', 'ab', '*', '>', ''], 4);

  it('tell valid subjects as splitting them does', () => {
    expect(all.filter((s) => isValidSubject(s) !== reference.isValidSubject(s))).toEqual([]);
    expect(all.filter(isValidSubject).length).toBeGreaterThan(100);
  });

  it('match subjects against patterns as splitting them does', () => {
    const patterns = all.filter(isValidPattern);
    let matched = 0;
    const wrong: string[] = [];
    for (const pattern of patterns) {
      for (const subject of all) {
        const expected = reference.subjectMatches(pattern, subject);
        if (expected) matched += 1;
        if (subjectMatches(pattern, subject) !== expected) wrong.push(`${pattern} ~ ${subject}`);
        if (subjectMatcher(pattern)(subject) !== expected) wrong.push(`matcher ${pattern} ~ ${subject}`);
      }
    }
    expect(wrong).toEqual([]);
    // the cases cover matches, not only refusals
    expect(matched).toBeGreaterThan(1_000);
  });

  it('tell subset patterns as splitting them does', () => {
    for (const pattern of ['nap.evt.>', 'a.*', 'a.>', '*.b', '>', 'a.b', '*.*.>']) {
      expect(all.filter((filter) => isSubsetPattern(filter, pattern) !== reference.isSubsetPattern(filter, pattern))).toEqual([]);
    }
    expect(isSubsetPattern('nap.evt.workflow.job.j1.taskStart', 'nap.evt.>')).toBe(true);
    expect(isSubsetPattern('nap.evtx.workflow', 'nap.evt.>')).toBe(false);
  });

  it('keep matching when more patterns were seen than are kept split', () => {
    const missed = Array.from({ length: 2_500 }, (_, i) => i).filter((i) => !subjectMatches(`p${i}.*`, `p${i}.x`));
    expect(missed).toEqual([]);
    expect(subjectMatches('p0.*', 'p1.x')).toBe(false);
    expect(Array.from({ length: 2_500 }, (_, i) => i).filter((i) => !subjectMatcher(`p${i}.*.x`)(`p${i}.y.x`))).toEqual([]);
    expect(subjectMatcher('p0.*.x')('p1.y.x')).toBe(false);
  });
});
