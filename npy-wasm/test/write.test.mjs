// toNpy: the bytes np.save wrote for the fixtures, byte for byte, from the values parse() gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse, toNpy } from '../js/index.js';
import { readJson } from './expect.mjs';

const FIX = new URL('../../fixtures/', import.meta.url);
const manifest = readJson(new URL('manifest.json', FIX));

test('toNpy(parse(f)) is np.save\'s file for numbers, bools, datetimes and strings', () => {
  let n = 0;
  for (const f of manifest.fixtures) {
    if (!/^[biufcmMUS]$/.test(f.kind) || /f16|c32/.test(f.file) || !f.file.match(/_(le|be|na)_/)) continue;
    const bytes = new Uint8Array(readFileSync(new URL(f.file, FIX)));
    const r = parse(bytes);
    const out = toNpy({ dtype: r.dtype, shape: r.shape, data: r.data, fortranOrder: r.fortranOrder });
    assert.deepEqual(Buffer.from(out), Buffer.from(bytes), f.file);
    n++;
  }
  assert.ok(n > 120, `${n} files`);
});

test('toNpy from plain arrays, and its errors', () => {
  const a = toNpy({ dtype: '<f8', shape: [3], data: [1, 2.5, -0] });
  const r = parse(a);
  assert.deepEqual(Array.from(r.data), [1, 2.5, -0]);
  assert.throws(() => toNpy({ dtype: '<f4', shape: [4], data: new Float32Array(3) }), /12 bytes.*16 bytes/);
  assert.throws(() => toNpy({ dtype: '<f4', shape: [-1], data: new Float32Array(0) }), /whole numbers/);
  assert.throws(() => toNpy({ dtype: '<x9', shape: [1], data: new Uint8Array(1) }), Error);
  assert.throws(() => toNpy({ dtype: '|O', shape: [1], data: new Uint8Array(8) }), /object arrays/);
  assert.throws(() => toNpy({ dtype: '<U2', shape: [1], data: ['abc'] }), /longer/);
});
