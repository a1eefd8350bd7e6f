import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../api/canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys recursively and prints no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x y' } })).toBe(
      '{"a":{"c":"x y","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('orders keys by UTF-16 code units, not by locale or code point', () => {
    // U+FB01 (one code unit, 0xFB01) sorts after U+1F600 (surrogates 0xD83D...), although its code point is lower.
    const obj = { '\u{fb01}': 1, '\u{1f600}': 2, a: 3, B: 4, é: 5 };
    expect(canonicalJson(obj)).toBe('{"B":4,"a":3,"é":5,"😀":2,"ﬁ":1}');
  });

  it('prints numbers and strings as JSON.stringify does (JCS for our ranges)', () => {
    expect(canonicalJson([0, -0, 1.5, 0.1 + 0.2, 1e21, 1e-7, -999, 730])).toBe(
      '[0,0,1.5,0.30000000000000004,1e+21,1e-7,-999,730]',
    );
    expect(canonicalJson('a"b\\c\n\u0001é')).toBe('"a\\"b\\\\c\\n\\u0001é"');
    expect(canonicalJson([null, true, false])).toBe('[null,true,false]');
  });

  it('drops undefined members like JSON.stringify; undefined in arrays is null', () => {
    expect(canonicalJson({ a: undefined, b: null, c: [undefined] })).toBe('{"b":null,"c":[null]}');
  });

  it('uses toJSON (dates)', () => {
    expect(canonicalJson({ t: new Date(0) })).toBe('{"t":"1970-01-01T00:00:00.000Z"}');
  });

  it('refuses what JSON cannot carry faithfully', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson({ x: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => canonicalJson(1n)).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cyclic/);
  });

  it('allows shared (non-cyclic) references', () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"k":1},"b":{"k":1}}');
  });

  it('is a fixed point of parse + canonicalise', () => {
    const text = canonicalJson({ z: [1, { b: 2, a: 1 }], a: 'x' });
    expect(canonicalJson(JSON.parse(text))).toBe(text);
  });
});
