// Comparing what parse() gives with what numpy wrote in the fixtures' manifests (values as JSON
// in logical C order: nan/inf as strings, complex as [re, im], datetimes as integer ticks with
// NaT as null, bytes as latin-1 text, void as hex, records as objects in field order).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** JSON.parse keeping integers past 2^53 exact: they become the string "#big:N". */
export function readJson(path) {
  const text = readFileSync(path, 'utf8');
  return JSON.parse(text.replace(/([\[,:]\s*)(-?\d{16,})(?=\s*[,\]\}])/g, '$1"#big:$2"'));
}

function product(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

/** Element i (of k values) of a flat column as a value or a group of k values. */
function element(col, i, k) {
  if (k === 1) return col[i];
  return Array.from({ length: k }, (_, j) => col[i * k + j]);
}

function nest(flat, shape) {
  if (shape.length === 0) return flat[0];
  if (shape.length === 1) return flat;
  const step = product(shape.slice(1));
  return Array.from({ length: shape[0] }, (_, i) => nest(flat.slice(i * step, (i + 1) * step), shape.slice(1)));
}

/** The values of a parse result's data, per element in C order (`n` elements). */
function perElement(data, n) {
  if (ArrayBuffer.isView(data) || Array.isArray(data)) {
    const k = n ? data.length / n : 1;
    return Array.from({ length: n }, (_, i) => element(data, i, k));
  }
  if (data && data.shape && data.data) {
    const sub = data.shape.slice(arrayDims);
    const m = product(sub);
    const k = n * m ? data.data.length / (n * m) : 1;
    return Array.from({ length: n }, (_, i) => {
      const vals = Array.from({ length: m }, (_, j) => element(data.data, i * m + j, k));
      return nest(vals, sub);
    });
  }
  const fields = Object.entries(data).map(([name, v]) => [name, perElement(v, n)]);
  return Array.from({ length: n }, (_, i) => Object.fromEntries(fields.map(([name, v]) => [name, v[i]])));
}

/** Dimensions of the array being compared: a subarray field's shape is the array's, then its own. */
let arrayDims = 0;

/** The result's values nested as numpy's tolist(), C order. */
export function toList(r) {
  const c = r.toCOrder();
  const n = product(c.shape);
  arrayDims = c.shape.length;
  return nest(perElement(c.data, n), c.shape);
}

function hex(u8) {
  return Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Checks `ours` against numpy's `expected` (manifest conventions), at `where`. */
export function same(ours, expected, where) {
  if (expected === null) {
    assert.ok(ours === null || ours === -(2n ** 63n), `${where}: expected NaT/None, got ${String(ours)}`);
    return;
  }
  if (typeof expected === 'string' && expected.startsWith('#big:')) {
    assert.equal(String(ours), expected.slice(5), where);
    return;
  }
  if (expected === 'nan' && typeof ours === 'number') { assert.ok(Number.isNaN(ours), `${where}: ${ours} not NaN`); return; }
  if (expected === 'inf' && typeof ours === 'number') { assert.equal(ours, Infinity, where); return; }
  if (expected === '-inf' && typeof ours === 'number') { assert.equal(ours, -Infinity, where); return; }
  if (typeof expected === 'string' && ours instanceof Uint8Array) { assert.equal(hex(ours), expected, where); return; }
  if (typeof expected === 'string') { assert.equal(ours, expected, where); return; }
  if (typeof expected === 'boolean') {
    assert.equal(typeof ours === 'boolean' ? ours : ours !== 0, expected, where);
    return;
  }
  if (typeof expected === 'number') {
    if (typeof ours === 'bigint') assert.equal(ours, BigInt(expected), where);
    else assert.ok(Object.is(ours, expected), `${where}: ${ours} != ${expected}`);
    return;
  }
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(ours), `${where}: expected a list of ${expected.length}, got ${typeof ours} ${String(ours)}`);
    assert.equal(ours.length, expected.length, `${where}: length`);
    expected.forEach((e, i) => same(ours[i], e, `${where}[${i}]`));
    return;
  }
  assert.equal(typeof ours, 'object', where);
  // Field names as sets: the .npz manifest sorts them (fixtures.test.mjs checks the order).
  assert.deepEqual(Object.keys(ours).sort(), Object.keys(expected).sort(), `${where}: fields`);
  for (const k of Object.keys(expected)) same(ours[k], expected[k], `${where}.${k}`);
}
