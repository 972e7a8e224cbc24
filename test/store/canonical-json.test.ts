import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { BlobStore } from '../../src/store/blobs.js';
import { canonicalJson, normalizeJson, StoreError } from '../../src/store/index.js';
import { expectStoreError, sha256Hex, type TestStore } from '../helpers/store-fixtures.js';
import { storeTest as it } from '../helpers/store-test.js';
import { storeInternals, connectionOf } from '../helpers/store-internals.js';

/** `value` rebuilt with every object made from its entries sorted by code unit: pi-workflows' canonical form before `JSON.stringify`. */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sortedCopy(record[key])]),
  );
}

describe('canonical JSON (docs/PI-WORKFLOWS-FILES.md §8)', () => {
  it('sorts keys by plain code-unit order at every depth, without whitespace', () => {
    expect(canonicalJson({ b: 1, a: { z: true, y: [3, { d: null, c: 'x' }] } })).toBe('{"a":{"y":[3,{"c":"x","d":null}],"z":true},"b":1}');
    // Code units, not code points: U+FFFF sorts after a surrogate pair (U+1F600 = D83D DE00).
    expect(canonicalJson({ '\uffff': 1, '\u{1F600}': 2 })).toBe('{"😀":2,"\uffff":1}');
  });

  it('puts array-index keys first in numeric order, then the others sorted, as a JavaScript object orders them', () => {
    expect(canonicalJson({ b: 0, 10: 0, 2: 0, a: 0, Z: 0, é: 0, '': 0 })).toBe('{"2":0,"10":0,"":0,"Z":0,"a":0,"b":0,"é":0}');
    expect(canonicalJson({ x: { 10: [{ 1: 'b', 0: 'a' }], 9: null } })).toBe('{"x":{"9":null,"10":[{"0":"a","1":"b"}]}}');
    // Array indices are "0" … "4294967294" written canonically; anything else sorts as a string.
    const keys = ['4294967294', '4294967295', '99999999999', '01', '00', '-1', '1.5', '1e3', ' 1', '0', '7'];
    const value = Object.fromEntries(keys.map((key) => [key, key]));
    expect(canonicalJson(value)).toBe(
      '{"0":"0","7":"7","4294967294":"4294967294"," 1":" 1","-1":"-1","00":"00","01":"01","1.5":"1.5","1e3":"1e3","4294967295":"4294967295","99999999999":"99999999999"}',
    );
    expect(canonicalJson(value)).toBe(JSON.stringify(sortedCopy(value)));
  });

  it('equals JSON.stringify of a copy built from sorted entries, for any JSON value (property)', () => {
    const key = fc.oneof(fc.string({ maxLength: 4 }), fc.nat().map(String), fc.constantFrom('4294967294', '4294967295', '01', '-0', '1.0'));
    const json = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 4 })),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(key, tie('value'), { maxKeys: 6 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value)).toBe(JSON.stringify(sortedCopy(value)));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps array order and primitive values', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson('a"b\n')).toBe('"a\\"b\\n"');
    expect(canonicalJson(false)).toBe('false');
    expect(canonicalJson(1.5e300)).toBe('1.5e+300');
  });

  it('turns negative zero into 0, nested too', () => {
    expect(canonicalJson(-0)).toBe('0');
    expect(canonicalJson({ a: [-0] })).toBe('{"a":[0]}');
    expect(Object.is(normalizeJson(-0), 0)).toBe(true);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('JSON numbers must be finite (%s)', (value) => {
    expectStoreError(() => canonicalJson(value), 'JSON numbers must be finite', 'validation');
    expectStoreError(() => canonicalJson({ nested: [value] }), 'JSON numbers must be finite', 'validation');
  });

  it.each([
    ['a Date', new Date(0)],
    ['a Map', new Map()],
    [
      'a class instance',
      new (class Point {
        x = 1;
      })(),
    ],
    ['a boxed string', Object('s')],
    ['a regular expression', /x/],
  ])('Only plain objects can be stored as canonical JSON (%s)', (_name, value) => {
    expectStoreError(() => canonicalJson(value), 'Only plain objects can be stored as canonical JSON', 'validation');
  });

  it('accepts null-prototype objects', () => {
    const value = Object.assign(Object.create(null) as Record<string, unknown>, { b: 2, a: 1 });
    expect(canonicalJson(value)).toBe('{"a":1,"b":2}');
  });

  it('drops object keys whose value is undefined', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson({ a: undefined })).toBe('{}');
  });

  it.each([
    ['undefined at the top', undefined, 'undefined'],
    ['undefined in an array', [1, undefined], 'undefined'],
    ['a function', () => 1, 'function'],
    ['a bigint', 10n, 'bigint'],
    ['a symbol', Symbol('s'), 'symbol'],
  ])('Unsupported JSON value type: <typeof> (%s)', (_name, value, type) => {
    const error = expectStoreError(() => canonicalJson(value), `Unsupported JSON value type: ${type}`, 'validation');
    expect(error).toBeInstanceOf(StoreError);
  });

  it('normalising what was parsed gives the same canonical text', () => {
    const value = { z: [{ b: 1, a: 2 }], a: 'x' };
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(canonicalJson(value));
    expect(normalizeJson(JSON.parse('{"b":2,"a":1}'))).toEqual({ a: 1, b: 2 });
  });
});

describe('content-addressed blobs (docs/STORE-RULES.md §2.2)', () => {
  let blobs: BlobStore;
  it.beforeEach(({ t }) => {
    blobs = new BlobStore(storeInternals(t.store).database);
  });

  const count = (t: TestStore) => (connectionOf(t.store).prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n;

  it('keys JSON by SHA-256 of its canonical bytes and stores equal content once', ({ t }) => {
    const before = count(t);
    const hash = t.store.transaction(() => blobs.putJson({ b: 1, a: 2 }, t.clock.t));
    expect(hash.toString('hex')).toBe(sha256Hex('{"a":2,"b":1}'));
    expect(t.store.transaction(() => blobs.putJson({ a: 2, b: 1 }, t.clock.t)).equals(hash)).toBe(true);
    expect(count(t)).toBe(before + 1);
    expect(blobs.readJson(hash)).toEqual({ a: 2, b: 1 });
    const row = connectionOf(t.store).prepare('SELECT media_type, byte_length FROM blobs WHERE blob_hash = ?').get(hash);
    expect(row).toEqual({ media_type: 'application/json', byte_length: 13 });
  });

  it('keys text by SHA-256 of its UTF-8 bytes, as text/plain', ({ t }) => {
    const hash = t.store.transaction(() => blobs.putText('héllo', t.clock.t));
    expect(hash.toString('hex')).toBe(sha256Hex(Buffer.from('héllo', 'utf8')));
    expect(blobs.readText(hash)).toBe('héllo');
  });

  it('Content-addressed blob conflict: the same bytes under the other media type', ({ t }) => {
    t.store.transaction(() => blobs.putJson(null, t.clock.t));
    expectStoreError(() => t.store.transaction(() => blobs.putText('null', t.clock.t)), 'Content-addressed blob conflict', 'integrity');
  });

  it('JSON blob is missing or has the wrong media type', ({ t }) => {
    const text = t.store.transaction(() => blobs.putText('{"a":1}', t.clock.t));
    expectStoreError(() => blobs.readJson(text), 'JSON blob is missing or has the wrong media type', 'integrity');
    expectStoreError(() => blobs.readJson(Buffer.alloc(32)), 'JSON blob is missing or has the wrong media type', 'integrity');
  });
});
