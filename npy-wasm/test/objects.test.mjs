// Object arrays (fixtures/object, numpy's pickles, protocols 2-4): decoded by npy-pickle's
// restricted decoder, never executed, into JS values equal to what np.load(allow_pickle=True)
// gives (the manifest's tagged items, C order).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from '../js/index.js';

const DIR = new URL('../../fixtures/object/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', DIR), 'utf8'));

function hex(u8) {
  return Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');
}

function pyFloat(s) {
  return s === 'nan' ? NaN : s === 'inf' ? Infinity : s === '-inf' ? -Infinity : Number(s);
}

/** Checks a JS value against a tagged item of the manifest. */
function sameItem(ours, e, where) {
  if (e === null) return assert.equal(ours, null, where);
  if (typeof e === 'boolean' || typeof e === 'string') return assert.equal(ours, e, where);
  if (Array.isArray(e)) {
    assert.ok(Array.isArray(ours), `${where}: not a list`);
    assert.equal(ours.length, e.length, where);
    return e.forEach((x, i) => sameItem(ours[i], x, `${where}[${i}]`));
  }
  const [tag, v] = Object.entries(e)[0];
  switch (tag) {
    case 'int': return assert.equal(String(ours), v, where);
    case 'float': return assert.ok(Object.is(ours, pyFloat(v)), `${where}: ${ours} != ${v}`);
    case 'complex': return sameItem(ours, v.map((x) => ({ float: x })), where);
    case 'bytes': case 'bytearray':
      // An |S field of a record: a latin-1 string, as |S columns are.
      if (typeof ours === 'string') ours = Uint8Array.from(ours, (c) => c.charCodeAt(0));
      assert.ok(ours instanceof Uint8Array, `${where}: not bytes`);
      return assert.equal(hex(ours), v, where);
    case 'tuple': case 'set': case 'frozenset': return sameItem(ours, v, where);
    case 'dict':
      assert.ok(ours instanceof Map, `${where}: not a Map`);
      assert.equal(ours.size, v.length, where);
      [...ours.entries()].forEach(([k, x], i) => {
        sameItem(k, v[i][0], `${where}.key${i}`);
        sameItem(x, v[i][1], `${where}.value${i}`);
      });
      return;
    case 'range': case 'slice': case 'global':
      assert.equal(ours.type, tag, where);
      return;
    case 'ndarray':
      assert.equal(ours.dtype.descr, v.descr, where);
      assert.deepEqual(ours.shape, v.shape, where);
      return;
    case 'scalar':
      return;
    default:
      throw new Error(`${where}: unknown tag ${tag}`);
  }
}

test('fixtures/object: values equal np.load(allow_pickle=True)', () => {
  let n = 0;
  for (const f of manifest.fixtures) {
    if (f.descr !== '|O') continue;
    const r = parse(readFileSync(new URL(f.file, DIR))).toCOrder();
    assert.deepEqual(r.shape, f.shape, f.file);
    sameItem(r.data, f.items, f.file);
    n++;
  }
  assert.ok(n > 40, `${n} files`);
});

test('records with object fields: columns, as other records', () => {
  let n = 0;
  for (const f of manifest.fixtures) {
    if (!f.descr.startsWith('[')) continue;
    const r = parse(readFileSync(new URL(f.file, DIR))).toCOrder();
    // The manifest gives each record as a tuple of its fields, nested records as tuples too.
    const rows = (cols) => {
      const names = Object.keys(cols);
      const len = names.length ? (Array.isArray(cols[names[0]]) ? cols[names[0]].length : rows(cols[names[0]]).length) : 0;
      return Array.from({ length: len }, (_, i) => names.map((k) => (Array.isArray(cols[k]) ? cols[k][i] : rows(cols[k])[i])));
    };
    const ours = rows(r.data);
    const tuple = (e) => (e && e.tuple ? e.tuple.map(tuple) : e);
    sameItem(ours, f.items.map(tuple), f.file);
    n++;
  }
  assert.ok(n >= 4, `${n} files`);
});
