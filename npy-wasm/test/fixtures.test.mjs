// Every fixture numpy wrote (fixtures/manifest.json, fixtures/npz, fixtures/object): parse()
// must give numpy's values, or an error naming what is not supported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse, openNpz } from '../js/index.js';
import { readJson, toList, same } from './expect.mjs';

const FIX = new URL('../../fixtures/', import.meta.url);
const manifest = readJson(new URL('manifest.json', FIX));

test('fixtures/*.npy: values equal numpy tolist()', () => {
  let checked = 0;
  for (const f of manifest.fixtures) {
    const bytes = readFileSync(new URL(f.file, FIX));
    const r = parse(bytes);
    assert.deepEqual(r.shape, f.shape, f.file);
    assert.equal(r.fortranOrder, f.fortran_order, f.file);
    assert.equal(`'${r.dtype.descr}'`, f.descr.startsWith("'") ? f.descr : `'${f.descr}'`, f.file);
    if (!('data' in f)) continue;
    const list = toList(r);
    same(list, f.data, f.file);
    // Records: the columns in numpy's field order (the manifest's objects keep it).
    const first = [f.data].flat(f.shape.length)[0];
    if (f.kind === 'V' && first && typeof first === 'object' && !Array.isArray(first)) {
      assert.deepEqual(Object.keys(r.data), Object.keys(first), `${f.file}: field order`);
    }
    checked++;
  }
  assert.ok(checked > 150, `only ${checked} fixtures had values`);
});

test('every other .npy under fixtures/ (parity, ml_dtypes, external writers, sparse): parsed, or an Error naming why', async () => {
  const { readdirSync, statSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(FIX);
  const walk = (dir) => readdirSync(dir).flatMap((n) => {
    const p = `${dir}/${n}`;
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.npy') ? [p] : [];
  });
  let parsed = 0;
  let refused = 0;
  for (const p of walk(root.replace(/\/$/, ''))) {
    try {
      const r = parse(readFileSync(p));
      r.toCOrder();
      parsed++;
    } catch (e) {
      assert.ok(!(e instanceof WebAssembly.RuntimeError), `${p}: a wasm trap: ${e}`);
      assert.ok(e instanceof Error && e.message.length > 10, `${p}: ${e}`);
      refused++;
    }
  }
  console.log(`fixtures/**/*.npy: ${parsed} parsed, ${refused} refused with an Error`);
  assert.ok(parsed > 300, `${parsed} parsed`);
});
