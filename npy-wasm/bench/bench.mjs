// npy-wasm against npyjs (npm, the published package) in one Node run, on the same bytes:
//   node bench/bench.mjs            (after bash build.sh and npm ci)
// Rows: parse of 64 MiB of <f4 (both zero-copy where aligned: checked that the data is a view
// of the input's buffer), 1M records [('id','<i8'),('x','<f4'),('name','<U8')] to columns
// (npyjs cannot read records) -- the string column is made when first read, so a second row
// reads it (the 1M JS strings made) -- and the wasm's size gzipped with and without the
// pickle decoder (pkg/ and pkg-nopickle/, when built). Median and least of ROUNDS rounds,
// interleaved. Issue 43's records target: the records row within 2x npyjs's load of 64 MiB
// of <f4 (what a caller holding a Node Buffer gets; its zero-copy parse takes microseconds).
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import * as npyjs from 'npyjs';
import { parse, toNpy } from '../js/index.js';

const ROUNDS = Number(process.env.ROUNDS ?? 15);

function header(dict) {
  let text = dict;
  text += ' '.repeat((64 - ((10 + text.length + 1) % 64)) % 64) + '\n';
  const h = new Uint8Array(10 + text.length);
  h.set([0x93, 78, 85, 77, 80, 89, 1, 0, text.length & 0xff, text.length >> 8]);
  h.set(new TextEncoder().encode(text), 10);
  return h;
}

// 64 MiB of float32, as np.save writes it (toNpy is np.save's bytes, test/write.test.mjs).
const n = 16 * 2 ** 20;
const f = new Float32Array(n);
for (let i = 0; i < n; i++) f[i] = i * 0.25;
const f4 = toNpy({ dtype: '<f4', shape: [n], data: f });
const f4buf = f4.buffer.slice(f4.byteOffset, f4.byteOffset + f4.byteLength);

// 1M records of [('id','<i8'),('x','<f4'),('name','<U8')]: 44 bytes each, packed.
const rows = 2 ** 20;
const rh = header(`{'descr': [('id', '<i8'), ('x', '<f4'), ('name', '<U8')], 'fortran_order': False, 'shape': (${rows},), }`);
const rec = new Uint8Array(rh.length + rows * 44);
rec.set(rh);
const dv = new DataView(rec.buffer);
for (let i = 0; i < rows; i++) {
  const at = rh.length + i * 44;
  dv.setBigInt64(at, BigInt(i), true);
  dv.setFloat32(at + 8, i / 2, true);
  const name = `r${i}`;
  for (let j = 0; j < name.length; j++) dv.setUint32(at + 12 + 4 * j, name.charCodeAt(j), true);
}

async function time(fn) {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

// The zero-copy parses take tens of microseconds: each is timed as the mean of REPS calls, and
// they run interleaved before the rows that allocate (whose garbage collections would land in
// whichever row came next).
const REPS = 200;
const fast = {
  'npyjs parse(ArrayBuffer) 64 MiB <f4': () => npyjs.parse(f4buf),
  'npy-wasm parse(ArrayBuffer) 64 MiB <f4': () => parse(f4buf),
  'npy-wasm parse(Uint8Array) 64 MiB <f4': () => parse(f4),
};
const slow = {
  // What a Node caller holding readFileSync's Buffer (a Uint8Array) calls: npyjs copies it.
  'npyjs load(Uint8Array) 64 MiB <f4': () => npyjs.load(f4),
  'npy-wasm parse 1M records to columns': () => parse(rec),
};
// The 1M strings, made when `data.name` is first read: their own rounds, after the others
// (their garbage, collected later, would land in whichever row came next).
const strings = {
  'npy-wasm same, then every name read': () => parse(rec).data.name,
};
// Zero copy: the data is a view of the input's buffer.
const a = parse(f4buf);
const zeroCopy = a.data.buffer === f4buf && npyjs.parse(f4buf).data.buffer === f4buf;
const r = parse(rec);
if (r.data.name[12345] !== 'r12345' || r.data.id[7] !== 7n || r.data.x[9] !== 4.5) throw new Error('records wrong');

const times = Object.fromEntries([fast, slow, strings].flatMap(Object.keys).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [k, fn] of Object.entries(fast)) {
    times[k].push((await time(() => { for (let i = 0; i < REPS; i++) fn(); })) / REPS);
  }
}
for (const rows of [slow, strings]) {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, fn] of Object.entries(rows)) times[k].push(await time(fn));
  }
}
const med = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
const least = (v) => Math.min(...v);
console.log(`npy-wasm bench, Node ${process.version}, ${ROUNDS} rounds interleaved (ms: median / least)`);
for (const [k, v] of Object.entries(times)) console.log(`${k.padEnd(44)} ${med(v).toFixed(4).padStart(10)} / ${least(v).toFixed(4)}`);
const base = med(times['npyjs parse(ArrayBuffer) 64 MiB <f4']);
console.log(`zero copy (same buffer) for npy-wasm and npyjs: ${zeroCopy}`);
console.log(`64 MiB <f4: npy-wasm / npyjs = ${(med(times['npy-wasm parse(ArrayBuffer) 64 MiB <f4']) / base).toFixed(2)}x (target <= 1.0x)`);
const recs = med(times['npy-wasm parse 1M records to columns']);
const load = med(times['npyjs load(Uint8Array) 64 MiB <f4']);
console.log(`1M records / npyjs load(Uint8Array) 64 MiB <f4 = ${(recs / load).toFixed(2)}x (target <= 2x)`);
console.log(`1M records, every name read / npyjs load(Uint8Array) 64 MiB <f4 = ${(med(times['npy-wasm same, then every name read']) / load).toFixed(2)}x`);
for (const dir of ['pkg', 'pkg-nopickle']) {
  const p = new URL(`../${dir}/npy_wasm_bg.wasm`, import.meta.url);
  if (!existsSync(p)) continue;
  const w = readFileSync(p);
  console.log(`${dir}/npy_wasm_bg.wasm: ${w.length} bytes, ${gzipSync(w, { level: 9 }).length} gzipped (target <= 400 KB)`);
}
