import { audienceAdmits, audienceAdmitsGroups, audienceAdmitsPerson, seesEveryJob } from './job-audience';
import type { Caller } from './messages';

const person = (id: string, groups: string[], roles: Caller['roles'] = ['operations']): Caller => ({
  id,
  username: `${id}-name`,
  groups,
  roles,
});

describe('who may see a job', () => {
  const job = { groups: ['A'], owner: 'bob-name', runAsId: 'carol' };

  it('admits administrators and the platform whatever the groups', () => {
    expect(seesEveryJob(person('x', [], ['admin']))).toBe(true);
    expect(seesEveryJob({ id: 'system', roles: [] })).toBe(true);
    expect(audienceAdmits(job, person('x', ['B'], ['admin']))).toBe(true);
  });

  it('admits by groups: a job without groups, or one sharing a group', () => {
    expect(audienceAdmitsGroups({ groups: [] }, [])).toBe(true);
    expect(audienceAdmitsGroups(job, ['B', 'A'])).toBe(true);
    expect(audienceAdmitsGroups(job, ['B'])).toBe(false);
  });

  it('admits the person who started the job and the one it acts as, in no shared group', () => {
    expect(audienceAdmitsPerson(job, person('bob', ['B']))).toBe(true);
    expect(audienceAdmitsPerson(job, person('carol', ['B']))).toBe(true);
    expect(audienceAdmits(job, person('dave', ['B']))).toBe(false);
    expect(audienceAdmitsPerson({}, person('dave', ['B']))).toBe(false);
  });
});
