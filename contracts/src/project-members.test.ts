import { candidateNames, memberName, plainName, projectOf } from './project-members';

describe('project member names', () => {
  it('splits a stored member name into its project and its plain name', () => {
    const stored = memberName('66ce026421161b4df2717471', 'Command Template Runner');
    expect(stored).toBe('@66ce026421161b4df2717471: Command Template Runner');
    expect(projectOf(stored)).toBe('66ce026421161b4df2717471');
    expect(plainName(stored)).toBe('Command Template Runner');
    expect(projectOf('Command Template Runner')).toBeUndefined();
    expect(plainName('Command Template Runner')).toBe('Command Template Runner');
    // a colon later in the name is part of the name; "@" without ": " is no member
    expect(plainName('@p1: Step: one')).toBe('Step: one');
    expect(projectOf('@handle of a person')).toBeUndefined();
  });

  it("resolves a plain name from a project member to that project's member first, then the plain name", () => {
    expect(candidateNames('Command Template Runner', '@p1: Port Turn Up')).toEqual([
      '@p1: Command Template Runner',
      'Command Template Runner',
    ]);
  });

  it('takes a full member name, or any name from outside a project, exactly as given', () => {
    expect(candidateNames('@p2: Command Template Runner', '@p1: Port Turn Up')).toEqual(['@p2: Command Template Runner']);
    expect(candidateNames('Command Template Runner', 'Port Turn Up')).toEqual(['Command Template Runner']);
    expect(candidateNames('Command Template Runner')).toEqual(['Command Template Runner']);
  });
});
