// Hostile inputs: truncated files, lying headers, pickles that call functions, corrupt
// archives and random damage give a JS Error with a message, never a wasm trap
// (WebAssembly.RuntimeError) or a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { parse, openNpz, MAX_DECODE_BYTES } from '../js/index.js';

const FIX = new URL('../../fixtures/', import.meta.url);
const enc = new TextEncoder();

/** A .npy file of header dict `dict` (format 1.0, padded as np.save pads) and `data`. */
function npy(dict, data = new Uint8Array(0)) {
  let text = dict;
  const pad = 64 - ((10 + text.length + 1) % 64);
  text += ' '.repeat(pad % 64) + '\n';
  const head = new Uint8Array(10 + text.length);
  head.set([0x93, ...enc.encode('NUMPY'), 1, 0, text.length & 0xff, text.length >> 8]);
  head.set(enc.encode(text), 10);
  const out = new Uint8Array(head.length + data.length);
  out.set(head);
  out.set(data, head.length);
  return out;
}

function refused(fn, pattern, what) {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err, `${what}: no error`);
  assert.ok(!(err instanceof WebAssembly.RuntimeError), `${what}: a wasm trap: ${err}`);
  assert.ok(err instanceof Error && err.message.length > 0, `${what}: ${err}`);
  if (pattern) assert.match(err.message, pattern, what);
  return err;
}

test('truncated files: every fixture cut short is an Error', () => {
  const names = readdirSync(FIX).filter((n) => n.endsWith('.npy')).slice(0, 80);
  for (const name of names) {
    const bytes = new Uint8Array(readFileSync(new URL(name, FIX)));
    const cuts = new Set([0, 5, 9, 11, 40, bytes.length - 1]);
    for (const cut of cuts) {
      if (cut < 0 || cut >= bytes.length) continue;
      refused(() => parse(bytes.slice(0, cut)), null, `${name} cut at ${cut}`);
    }
  }
});

test('lying headers: shapes larger than the file, broken dicts', () => {
  refused(() => parse(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }")),
    /trunc|data|bytes/i, 'huge shape');
  refused(() => parse(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }")),
    null, 'overflowing shape');
  refused(() => parse(npy("{'descr': '<U9', 'fortran_order': False, 'shape': (3,), }", new Uint8Array(10))),
    null, 'strings short');
  refused(() => parse(npy("{'descr': [('a', '<i8')], 'fortran_order': False, 'shape': (1000000000,), }")),
    null, 'records short');
  refused(() => parse(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)")), null, 'unclosed dict');
  refused(() => parse(npy("{'descr': '<q9', 'fortran_order': False, 'shape': (1,), }", new Uint8Array(8))),
    null, 'unknown dtype');
  refused(() => parse(npy('{' + '['.repeat(100000))), null, 'deep nesting');
  refused(() => parse(new Uint8Array([0x93, 78, 85, 77, 80, 89, 1, 0, 0xff, 0xff])), null, 'header past the end');
  refused(() => parse(new Uint8Array([1, 2, 3])), /not a \.npy/, 'not npy');
});

test('pickles that call functions are refused, nothing executed', () => {
  const header = "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }";
  // protocol 0: os.system('echo pwned')
  const calls = [
    "cos\nsystem\n(S'echo pwned'\ntR.",
    "cbuiltins\neval\n(S'1+1'\ntR.",
    "csubprocess\ncheck_output\n(S'ls'\ntR.",
    "cnumpy.core.multiarray\n_reconstruct\n(cos\nsystem\nS'x'\ntR.",
  ];
  for (const p of calls) {
    refused(() => parse(npy(header, enc.encode(p))), /refus|not allowed|allow/i, JSON.stringify(p));
  }
  // Truncated and bomb-like pickles.
  refused(() => parse(npy(header, enc.encode('(lp0\n'))), null, 'cut pickle');
  refused(() => parse(npy(header, new Uint8Array([0x80, 4, 0x95, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]))), null, 'frame bomb');
});

test('corrupt archives are Errors', () => {
  const good = new Uint8Array(readFileSync(new URL('npz/savez_compressed.npz', FIX)));
  refused(() => openNpz(good.slice(0, 100)), null, 'cut archive');
  refused(() => openNpz(new Uint8Array(64)), null, 'zeros');
  const npz = openNpz(good);
  refused(() => npz.get('nope'), /nope/, 'missing key');
  // Damage a deflated member's bytes: CRC or inflate error, never a trap.
  for (let at = 60; at < 1500; at += 37) {
    const bad = good.slice();
    bad[at] ^= 0x5a;
    try {
      const z = openNpz(bad);
      for (const k of z.keys) {
        try { z.get(k); } catch (e) { assert.ok(!(e instanceof WebAssembly.RuntimeError), `${at} ${k}: ${e}`); }
      }
      z.close();
    } catch (e) {
      assert.ok(!(e instanceof WebAssembly.RuntimeError), `${at}: ${e}`);
    }
  }
});

test('random damage to fixtures: values or Errors, never a trap, in bounded time', () => {
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const names = readdirSync(FIX).filter((n) => n.endsWith('.npy'));
  const t0 = Date.now();
  for (let i = 0; i < 1500; i++) {
    const name = names[Math.floor(rand() * names.length)];
    const bytes = new Uint8Array(readFileSync(new URL(name, FIX)));
    const flips = 1 + Math.floor(rand() * 4);
    for (let j = 0; j < flips; j++) {
      bytes[Math.floor(rand() * Math.min(bytes.length, 200))] = Math.floor(rand() * 256);
    }
    try {
      const r = parse(bytes);
      r.toCOrder();
    } catch (e) {
      assert.ok(!(e instanceof WebAssembly.RuntimeError), `${name} #${i}: ${e}`);
      assert.ok(e instanceof Error && e.message, `${name} #${i}`);
    }
  }
  assert.ok(Date.now() - t0 < 60000, 'took over a minute');
});

test('inputs past MAX_DECODE_BYTES are an Error before wasm allocates, not a trap', () => {
  // 1 GiB + 64 of zeros (untouched pages) under a big-endian header: decoded in wasm, so refused.
  const header = npy(`{'descr': '>f4', 'fortran_order': False, 'shape': (${MAX_DECODE_BYTES / 4 + 16},), }`);
  const big = new Uint8Array(MAX_DECODE_BYTES + 64 + 128);
  big.set(header.subarray(0, 128));
  refused(() => parse(big), /MAX_DECODE_BYTES/, 'big-endian 1 GiB');
  refused(() => openNpz(big), /MAX_DECODE_BYTES/, '1 GiB archive');
  // The same size little-endian is viewed in place: no limit.
  big.set(npy(`{'descr': '<f4', 'fortran_order': False, 'shape': (${MAX_DECODE_BYTES / 4 + 16},), }`).subarray(0, 128));
  const r = parse(big);
  assert.equal(r.data.length, MAX_DECODE_BYTES / 4 + 16);
  assert.equal(r.data.buffer, big.buffer);
});
