/**
 * isId checks an id's shape character by character; it must accept exactly what the pattern of the
 * interface (a kind's prefix, then 1 to 64 of [0-9a-z]) accepts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ID_PREFIX, type IdKind, isId, makeId } from '../../domain/ids.js';

const KINDS = Object.keys(ID_PREFIX) as IdKind[];
const patternOf = (kind: IdKind) => new RegExp(`^${ID_PREFIX[kind]}[0-9a-z]{1,64}$`);

describe('isId', () => {
  it('accepts every made id of its kind and no other kind', () => {
    for (const kind of KINDS) {
      const id = makeId(kind, `source ${kind}`);
      for (const other of KINDS) expect(isId(other, id)).toBe(other === kind);
    }
  });

  it('hand-picked edges: an empty token, 64 and 65 characters, upper case, a trailing newline, other prefixes', () => {
    expect(isId('horse', 'hrs_')).toBe(false);
    expect(isId('horse', 'hrs_a')).toBe(true);
    expect(isId('horse', `hrs_${'z'.repeat(64)}`)).toBe(true);
    expect(isId('horse', `hrs_${'z'.repeat(65)}`)).toBe(false);
    expect(isId('horse', 'hrs_AB12')).toBe(false);
    expect(isId('horse', 'hrs_ab12\n')).toBe(false);
    expect(isId('horse', 'hrs-ab12')).toBe(false);
    expect(isId('horse', ' hrs_ab12')).toBe(false);
    expect(isId('horse', 'hrs_ab_12')).toBe(false);
    expect(isId('horse', 'hrs_ab{')).toBe(false);
    expect(isId('horse', 'hrs_ab/')).toBe(false);
    expect(isId('horse', 'hrs_ab:')).toBe(false);
    expect(isId('horse', 'hrs_ab`')).toBe(false);
    expect(isId('dam', 'dam_x9')).toBe(true);
  });

  it('agrees with the pattern on random strings near the id shape', () => {
    const token = fc.string({
      unit: fc.constantFrom(...'0123456789abcdefghijklmnopqrstuvwxyzAZ_-/:`{\n é'.split('')),
      minLength: 0,
      maxLength: 70,
    });
    const prefix = fc.constantFrom(...Object.values(ID_PREFIX), '', 'hrs', 'HRS_', 'rac-', 'x_');
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), prefix, token, (kind, p, t) => {
        const id = p + t;
        expect(isId(kind, id)).toBe(patternOf(kind).test(id));
      }),
      { numRuns: 20_000 },
    );
  });
});
