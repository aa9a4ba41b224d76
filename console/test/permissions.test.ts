import { getOperation } from '@nap/contracts';
import { ACTION_ROLES, mayCall } from '../src/session/permissions';

/** The console offers an action only to roles the platform accepts for it: its table must be the catalog's. */
describe('the console’s action roles', () => {
  it('are the roles of each action’s operation in the catalog', () => {
    for (const [id, roles] of Object.entries(ACTION_ROLES)) expect([...roles].sort()).toEqual([...getOperation(id).roles].sort());
  });

  it('offer nothing to a read-only account and everything to an operator', () => {
    for (const id of Object.keys(ACTION_ROLES) as (keyof typeof ACTION_ROLES)[]) {
      expect(mayCall(['apiread'], id)).toBe(false);
      expect(mayCall(['operations'], id)).toBe(true);
      expect(mayCall(undefined, id)).toBe(false);
    }
  });
});
