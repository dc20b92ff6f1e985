// Regressions found by a new user of the package (issue 43's follow-up), one test per kind of
// bug; the inputs and expected values are numpy's (test/numpy.mjs runs the project's Python).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse, openNpz, fetchNpy, fetchNpz, toNpy, MAX_DECODE_BYTES } from '../js/index.js';
import { numpy } from './numpy.mjs';
import { startServer } from './server.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.close(); });

function notTrap(e) {
  assert.ok(!(e instanceof WebAssembly.RuntimeError), `a wasm trap: ${e}`);
  return true;
}

test('object arrays whose pickle is under 8 bytes an element: parse, npz, fetchNpy, toString', async (t) => {
  const np = numpy(t, `
arrays = {
  'range50': np.arange(50).astype(object),
  'none100': np.array([None] * 100, dtype=object),
  'range1200': np.array(list(range(1200)), dtype=object),
  'empty': np.array([], dtype=object),
  'zeros2d': np.zeros((40, 3), dtype=object),
  'rec': np.array([(i, None) for i in range(60)], dtype=[('a', '<i4'), ('b', 'O')]),
}
out = {}
for k, a in arrays.items():
    np.save(k + '.npy', a)
    out[k] = {'shape': list(a.shape), 'str': str(a), 'itemsize': a.dtype.itemsize,
              'list': a.tolist() if a.dtype.names is None else {n: a[n].tolist() for n in a.dtype.names}}
np.savez('all.npz', **arrays)
np.savez_compressed('allc.npz', **arrays)
print(json.dumps(out))
`);
  if (!np) return;
  for (const [k, e] of Object.entries(np.out)) {
    const bytes = np.file(`${k}.npy`);
    // The kind of input: fewer data bytes than itemsize an element (what the size check assumed).
    if (k !== 'empty') assert.ok(bytes.length < e.itemsize * e.shape.reduce((a, b) => a * b, 1) + 128, `${k}: ${bytes.length}`);
    const check = (r, where) => {
      assert.deepEqual(r.shape, e.shape, where);
      if (k === 'rec') {
        assert.deepEqual(r.data.a, e.list.a, where);
        assert.deepEqual(r.data.b, e.list.b, where);
      } else {
        assert.deepEqual(r.data, e.list.flat(), where);
      }
      assert.equal(r.toString(), e.str, `${where}: str()`);
    };
    check(parse(bytes), `parse ${k}`);
    for (const z of ['all.npz', 'allc.npz']) {
      const npz = openNpz(np.file(z));
      check(npz.get(k), `${z}/${k}`);
      npz.close();
    }
    check(await fetchNpy(server.put(`${k}.npy`, bytes)), `fetchNpy ${k}`);
    const rows = await fetchNpy(server.put(`${k}.npy`, bytes), { rows: [1, 3] });
    assert.deepEqual(rows.shape, [Math.min(e.shape[0], 3) - Math.min(e.shape[0], 1), ...e.shape.slice(1)], `rows ${k}`);
  }
});

test('a malformed object pickle is the pickle error naming the opcode, not a size error', (t) => {
  // np.save's header for one |O element, then a 5-byte pickle whose EXT1 opcode (0x82, the
  // extension registry) numpy's loader would look up: refused by name.
  const np = numpy(t, `
np.save('one.npy', np.array([None], dtype=object))
b = open('one.npy', 'rb').read()
off = 10 + int.from_bytes(b[8:10], 'little')
open('ext1.npy', 'wb').write(b[:off] + b'\\x80\\x02\\x82\\x01.')
print(json.dumps(off))
`);
  if (!np) return;
  const bytes = np.file('ext1.npy');
  assert.throws(() => parse(bytes), (e) => notTrap(e) && /EXT1|0x82|extension/i.test(e.message) && !/bytes needed/.test(e.message));
});

test('an .npz member inflating past MAX_DECODE_BYTES is an Error naming it, before inflating; the archive stays usable', async (t) => {
  // zipfile streams a member of |u1 zeros 1 MiB past the budget (zip64, sizes in the data
  // descriptor and the central directory), and a small member beside it.
  const np = numpy(t, `
import zipfile
from numpy.lib import format as F
n = (1 << 30) + (1 << 20)
with zipfile.ZipFile('bomb.npz', 'w', compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
    with zf.open('a.npy', 'w', force_zip64=True) as f:
        F.write_array_header_1_0(f, {'descr': '|u1', 'fortran_order': False, 'shape': (n,)})
        z = bytes(1 << 24)
        for i in range(n >> 24):
            f.write(z)
        f.write(bytes(n % (1 << 24)))
    with zf.open('b.npy', 'w') as f:
        np.save(f, np.arange(5, dtype='<i2'))
with np.load('bomb.npz') as z:
    print(json.dumps({'size': z.zip.getinfo('a.npy').file_size, 'b': z['b'].tolist()}))
`);
  if (!np) return;
  const { size, b } = np.out;
  assert.ok(size > MAX_DECODE_BYTES);
  const bytes = np.file('bomb.npz');
  const npz = openNpz(bytes);
  const refused = (e) => notTrap(e) && e instanceof Error && e.message.includes("member 'a'")
    && e.message.includes(String(size)) && e.message.includes(String(MAX_DECODE_BYTES));
  assert.throws(() => npz.get('a'), refused);
  assert.throws(() => npz.bytes('a'), refused);
  // Usable after the error, and after a missing key.
  assert.deepEqual(Array.from(npz.get('b').data), b);
  assert.throws(() => npz.get('nope'), /nope/);
  assert.deepEqual(Array.from(npz.get('b').data), b);
  // close() is idempotent; reads after it are a clear Error.
  npz.close();
  npz.close();
  assert.throws(() => npz.get('b'), /closed/);
  assert.throws(() => npz.bytes('b'), /closed/);
  // fetchNpz: the same Error, before the member's bytes are fetched.
  server.reset();
  const url = server.put('bomb.npz', bytes);
  await assert.rejects(fetchNpz(url, 'a'), refused);
  const s = server.stats.get('/put/bomb.npz');
  assert.ok(s.bytes < bytes.length / 2, `${s.bytes} of ${bytes.length} bytes fetched`);
  assert.deepEqual(Array.from((await fetchNpz(url, 'b')).data), b);
});

test("fetchNpy rows are numpy's a[start:end] (negative from the end, clamped, reversed empty); 0-d is an Error; bad rows before any request", async (t) => {
  const pairs = [[0, 2], [-3, -1], [-2, 7], [-100, 2], [5, 2], [-1, -3], [3, 100], [7, 8], [-7, 0], [0, -1]];
  const np = numpy(t, `
pairs = ${JSON.stringify(pairs)}
c = np.arange(21, dtype='<i4').reshape(7, 3)
np.save('c.npy', c)
np.save('f.npy', np.asfortranarray(c))
np.save('u.npy', np.array(['a', 'bb', 'ccc', 'd', 'e', 'f', 'g']))
np.save('zero_d.npy', np.array(5.0))
u = np.load('u.npy')
out = {'c': [c[a:b].tolist() for a, b in pairs], 'u': [u[a:b].tolist() for a, b in pairs]}
try:
    np.load('zero_d.npy')[0:1]
except IndexError as e:
    out['zero_d'] = str(e)
print(json.dumps(out))
`);
  if (!np) return;
  assert.ok(np.out.zero_d, 'numpy raises IndexError slicing a 0-d array');
  for (const [name, key] of [['c.npy', 'c'], ['f.npy', 'c'], ['u.npy', 'u']]) {
    const url = server.put(name, np.file(name));
    for (const [i, rows] of pairs.entries()) {
      const r = await fetchNpy(url, { rows });
      const want = np.out[key][i];
      assert.equal(r.shape[0], want.length, `${name} ${rows}: rows`);
      const flat = Array.from(r.data);
      assert.deepEqual(flat, want.flat(), `${name} ${rows}`);
    }
  }
  const zurl = server.put('zero_d.npy', np.file('zero_d.npy'));
  await assert.rejects(fetchNpy(zurl, { rows: [0, 1] }), (e) => notTrap(e) && /0-d/.test(e.message));
  assert.equal((await fetchNpy(zurl)).data[0], 5);
  server.reset();
  for (const rows of [[0], [0, 1, 2], [0.5, 1], ['0', '1'], 'all', [0, NaN]]) {
    await assert.rejects(fetchNpy(zurl, { rows }), TypeError);
  }
  assert.equal(server.stats.get('/put/zero_d.npy'), undefined, 'no request for bad rows');
});
