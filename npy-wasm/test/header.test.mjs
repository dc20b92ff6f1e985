// The JS fast path for np.save's simple headers (js/index.js, _simpleHeader) must agree with
// npy-core's parser in wasm wherever it answers: on every fixture, and on damaged copies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as wasm from '../pkg/npy_wasm.js';
import { _simpleHeader } from '../js/index.js';

const FIX = new URL('../../fixtures/', import.meta.url);

function wasmHeader(bytes) {
  try {
    return JSON.parse(wasm._readHeader(bytes, bytes.length));
  } catch (e) {
    return { error: e.message };
  }
}

test('the fast header path agrees with npy-core on fixtures and damaged copies', () => {
  const names = readdirSync(FIX).filter((n) => n.endsWith('.npy'));
  let answered = 0;
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (const name of names) {
    const good = new Uint8Array(readFileSync(new URL(name, FIX)));
    const variants = [good, good.slice(0, good.length - 1)];
    for (let i = 0; i < 30; i++) {
      const bad = good.slice();
      bad[10 + Math.floor(rand() * Math.min(118, bad.length - 10))] = [0x27, 0x20, 0x30, 0x31, 0x2c, 0x29, 0x39, 0x3c, 0x3e, 0x7c][Math.floor(rand() * 10)];
      variants.push(bad);
    }
    for (const v of variants) {
      const fast = _simpleHeader(v, v.length);
      if (!fast) continue;
      answered++;
      assert.deepEqual(fast, wasmHeader(v), `${name}: ${String.fromCharCode(...v.subarray(10, 80))}`);
    }
  }
  assert.ok(answered > 100, `${answered} answered by the fast path`);
});

test('headers the fast path leaves to wasm', () => {
  const enc = new TextEncoder();
  const npy = (text) => {
    const t = text + ' '.repeat(117 - text.length) + '\n';
    const b = new Uint8Array(10 + t.length + 64);
    b.set([0x93, 78, 85, 77, 80, 89, 1, 0, t.length, 0]);
    b.set(enc.encode(t), 10);
    return b;
  };
  for (const h of [
    "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }",
    "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }",
    "{'descr': '<i3', 'fortran_order': False, 'shape': (2,), }",
    "{'shape': (2,), 'descr': '<f4', 'fortran_order': False, }",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (100,), }",
  ]) {
    assert.equal(_simpleHeader(npy(h), 128 + 64), null, h);
  }
  assert.deepEqual(_simpleHeader(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }"), 192)?.shape, [4, 4]);
});
