// fetchNpy / fetchNpz against a local Range server (test/server.mjs): the header first, then only
// the rows asked for; the requests and bytes are counted.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fetchNpy, fetchNpz, parse, openNpz } from '../js/index.js';
import { startServer, bigValue, BIG_COLS, BIG_ROWS } from './server.mjs';
import { readJson, toList, same } from './expect.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.close(); });

test('fetchNpy rows [0, 10] of a 1 GiB file: <= 2 requests, <= 128 KiB', async () => {
  server.reset();
  const r = await fetchNpy(`${server.url}/big.npy`, { rows: [0, 10] });
  const s = server.stats.get('/big.npy');
  console.log(`fetchNpy rows [0, 10] of 1 GiB: ${s.requests} request(s), ${s.bytes} bytes`);
  assert.ok(s.requests <= 2, `${s.requests} requests`);
  assert.ok(s.bytes <= 128 * 1024, `${s.bytes} bytes`);
  assert.deepEqual(r.shape, [10, BIG_COLS]);
  assert.equal(r.data.length, 10 * BIG_COLS);
  for (let i = 0; i < r.data.length; i++) assert.equal(r.data[i], bigValue(i));
});

test('fetchNpy rows far into the file: the header, then the rows', async () => {
  server.reset();
  const lo = BIG_ROWS - 300;
  const r = await fetchNpy(`${server.url}/big.npy`, { rows: [lo, BIG_ROWS + 5] });
  const s = server.stats.get('/big.npy');
  assert.equal(s.requests, 2);
  assert.ok(s.bytes <= 64 * 1024 + 300 * BIG_COLS * 4, `${s.bytes}`);
  assert.deepEqual(r.shape, [300, BIG_COLS]);
  assert.equal(r.data[0], bigValue(lo * BIG_COLS));
  assert.equal(r.data[r.data.length - 1], bigValue(BIG_ROWS * BIG_COLS - 1));
});

test('fetchNpy of fixtures (whole and by rows, C and Fortran order) equals parse', async () => {
  for (const name of ['f8_be_c_2x3x4.npy', 'U5_le_f_2x3x4.npy', 'rec_strings.npy', 'M8D_le_c_5.npy']) {
    const whole = parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url)));
    const got = await fetchNpy(`${server.url}/fixtures/${name}`);
    assert.deepEqual(toList(got), toList(whole), name);
    const rows = await fetchNpy(`${server.url}/fixtures/${name}`, { rows: [1, 2] });
    assert.deepEqual(toList(rows), toList(whole).slice(1, 2), `${name} rows`);
  }
});

test('fetchNpz: members by ranges equal numpy\'s values', async () => {
  const manifest = readJson(new URL('../../fixtures/npz/manifest.json', import.meta.url));
  for (const file of ['savez.npz', 'savez_compressed.npz', 'order_endian_compressed.npz']) {
    const a = manifest.archives.find((x) => x.file === file);
    for (const [key, m] of Object.entries(a.members)) {
      server.reset();
      const r = await fetchNpz(`${server.url}/fixtures/npz/${file}`, key);
      same(toList(r), m.data, `${file}/${key}`);
      assert.ok(server.stats.get(`/fixtures/npz/${file}`).requests <= 4);
    }
  }
  await assert.rejects(fetchNpz(`${server.url}/fixtures/npz/savez.npz`, 'nope'), /nope/);
  await assert.rejects(fetchNpy(`${server.url}/big.npy`, { rows: [0.5, 2] }), /whole numbers/);
  await assert.rejects(fetchNpy(`${server.url}/missing.npy`), /404/);
  await assert.rejects(fetchNpy(`${server.url}/fixtures/npz/savez.npz`), Error);
});
