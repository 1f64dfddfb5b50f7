// Who may propose a write: of the person roles, a maker, an owner and a program given `automation`;
// a viewer reads, an approver approves other people's writes, an admin administers. Every set of
// roles is checked, and a message without an actor (sent before actors were carried) is its
// tenant's owner's.
import { describe, expect, it } from 'vitest';
import { type Actor, mayProposeWrites, PERSON_ROLES, WRITE_ROLES } from '../src/index.ts';

describe('mayProposeWrites', () => {
  it('holds for exactly the role sets that include maker, owner or automation', () => {
    for (let mask = 0; mask < 2 ** PERSON_ROLES.length; mask++) {
      const roles = PERSON_ROLES.filter((_, i) => mask & (1 << i));
      const expected = roles.some((r) => r === 'maker' || r === 'owner' || r === 'automation');
      for (const via of ['api', 'mcp', 'messaging'] as const) {
        const actor: Actor = { userId: mask % 2 ? null : `user-${mask}`, roles, via };
        expect(mayProposeWrites(actor), JSON.stringify(actor)).toBe(expected);
      }
    }
    expect([...WRITE_ROLES].sort()).toEqual(['automation', 'maker', 'owner']);
  });

  it('holds for a message that carries no actor', () => {
    expect(mayProposeWrites(undefined)).toBe(true);
  });
});
