// U and S strings as numpy's tolist() gives them: trailing NULs removed (inner ones kept),
// code points past the BMP as surrogate pairs, big-endian U, latin-1 S, subarray and nested
// fields; and the string columns' values made when first read (issue 43: a records parse
// does not pay for its strings until they are read), still plain Arrays of strings. The
// inputs and expected values are numpy's (test/numpy.mjs runs the project's Python).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, openNpz } from '../js/index.js';
import { numpy } from './numpy.mjs';

const SCRIPT = `
words = ['', 'a', 'a\\x00b', '\\x00\\x00x', 'caf\\u00e9', '\\u20ac1', '\\U0001F600', 'x\\U0001F600y\\U00010348',
         '\\U0010FFFF', 'abcdefgh', 'ab\\x00\\x00', 'tab\\there', '"q"\\\\']
n = len(words)
arrays = {
  'u_le': np.array(words, dtype='<U8'),
  'u_be': np.array(words, dtype='>U8'),
  'u_2d': np.array(words[:12], dtype='<U8').reshape(3, 4),
  'u_f': np.asfortranarray(np.array(words[:12], dtype='<U8').reshape(3, 4)),
  's': np.array([w.encode('latin-1', 'replace') for w in words[:6]] + [b'\\xff\\xe9z', b'\\x00a\\x00'], dtype='S4'),
  'rec': np.array([(i, i / 2, w, w.encode('utf-8')[:6]) for i, w in enumerate(words)],
                  dtype=[('id', '<i8'), ('x', '<f4'), ('name', '<U8'), ('raw', 'S6')]),
  'rec_be': np.array([(i, w) for i, w in enumerate(words)], dtype=[('id', '>i4'), ('name', '>U8')]),
  'rec_sub': np.array([((w, w[:2]), (i, w)) for i, w in enumerate(words)],
                      dtype=[('pair', '<U8', (2,)), ('inner', [('k', '<u2'), ('s', '<U3')])]),
  'rec_ascii': np.array([(i, 'r%d' % i) for i in range(1000)], dtype=[('id', '<i8'), ('name', '<U8')]),
  # Many blocks of rows (npy-wasm gathers 64 KiB of rows at a time), ASCII until a row past
  # the first block: 4-byte aligned code points (word loads), and packed after a byte (not).
  'rec_words': np.array([(i, 'r%d' % (i % 100) if i != 15000 else '\\U0001F600') for i in range(20000)],
                        dtype=[('id', '<i4'), ('s', '<U3')]),
  'rec_packed': np.array([(i % 256, 'p%d' % (i % 10) if i != 15001 else '\\u00e9\\U00010348', 'ab'[:i % 3]) for i in range(20000)],
                         dtype=[('k', 'u1'), ('s', '<U3'), ('t', '<U2')]),
  # A longdouble field: npy-core's dynamic read (not the direct one) makes these columns.
  'rec_ld': np.array([(i / 4, w) for i, w in enumerate(words)], dtype=[('ld', np.longdouble), ('name', '<U8')]),
  'rec_aligned': np.array([(1, 'ab', 2.5), (2, '\\U0001F600', -1.0)],
                          dtype=np.dtype([('a', 'u1'), ('s', '<U2'), ('f', '<f8')], align=True)),
}
out = {}
for k, a in arrays.items():
    np.save(k + '.npy', a)
    def col(v):
        return [x.decode('latin-1') if isinstance(x, bytes) else x for x in np.ravel(v, order='K').tolist()] \\
            if v.dtype.kind in 'US' else np.ravel(v, order='K').astype(float if v.dtype.kind == 'f' else v.dtype).tolist()
    if a.dtype.names is None:
        out[k] = {'shape': list(a.shape), 'data': col(a)}
    else:
        cols = {}
        for name in a.dtype.names:
            f = a[name]
            if f.dtype.names is not None:
                cols[name] = {m: col(f[m]) for m in f.dtype.names}
            else:
                cols[name] = col(f)
        out[k] = {'shape': list(a.shape), 'data': cols}
np.savez('all.npz', **arrays)
print(json.dumps(out))
`;

/** Plain values of a parse result's data for comparing: typed arrays as Arrays of numbers. */
function plain(v) {
  if (ArrayBuffer.isView(v)) return Array.from(v, (x) => (typeof x === 'bigint' ? Number(x) : x));
  if (Array.isArray(v)) return v;
  if (v && v.shape && v.data) return plain(v.data);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
}

test('U and S strings equal numpy tolist(): trailing NULs cut, non-BMP code points, big-endian, latin-1, records, subarrays, npz', (t) => {
  const np = numpy(t, SCRIPT);
  if (!np) return;
  const npz = openNpz(np.file('all.npz'));
  for (const [k, e] of Object.entries(np.out)) {
    for (const [where, r] of [[`${k}.npy`, parse(np.file(`${k}.npy`))], [`all.npz/${k}`, npz.get(k)]]) {
      assert.deepEqual(r.shape, e.shape, where);
      assert.deepEqual(plain(r.data), e.data, where);
    }
  }
  npz.close();
  // What the cases hold (so that the fixture keeps testing them).
  const u = np.out.u_le.data;
  assert.ok(u.includes('\u{1F600}') && u.includes('x\u{1F600}y\u{10348}') && u.includes('a\u0000b'));
  assert.ok(u.includes('\u{10FFFF}') && u.includes('ab') && u.includes(''));
  assert.equal(np.out.rec_words.data.s[15000], '\u{1F600}');
  assert.equal(np.out.rec_packed.data.s[15001], '\u00e9\u{10348}');
});

test('string columns are made when first read, then are plain Arrays of JS strings', (t) => {
  const np = numpy(t, SCRIPT);
  if (!np) return;
  const e = np.out.rec.data;
  const r = parse(np.file('rec.npy'));
  // Before any read: an accessor, in field order.
  assert.deepEqual(Object.keys(r.data), ['id', 'x', 'name', 'raw']);
  assert.equal(typeof Object.getOwnPropertyDescriptor(r.data, 'name').get, 'function');
  const name = r.data.name;
  assert.ok(Array.isArray(name) && Object.getPrototypeOf(name) === Array.prototype);
  assert.deepEqual(name, e.name);
  // After it: a data property holding the same Array.
  assert.equal(r.data.name, name);
  assert.deepEqual(Object.getOwnPropertyDescriptor(r.data, 'name'), { value: name, writable: true, enumerable: true, configurable: true });
  // Every way of copying the data reads it: spread, JSON, structuredClone, deepEqual.
  const fresh = () => parse(np.file('rec.npy')).data;
  assert.deepEqual({ ...fresh() }.raw, e.raw);
  assert.deepEqual(JSON.parse(JSON.stringify(fresh(), (k, v) => (typeof v === 'bigint' ? Number(v) : v))).name, e.name);
  assert.deepEqual(structuredClone(fresh()).name, e.name);
  assert.deepEqual(plain(fresh()), e);
  // A frozen result still reads (the same Array each time).
  const frozen = Object.freeze(fresh());
  assert.deepEqual(frozen.name, e.name);
  assert.equal(frozen.name, frozen.name);
  // Assigning replaces it before and after a read.
  const d = fresh();
  d.name = ['replaced'];
  assert.deepEqual(d.name, ['replaced']);
  // A plain U array: `data` itself, on the result.
  const u = parse(np.file('u_le.npy'));
  assert.deepEqual(Object.keys(u), ['dtype', 'shape', 'fortranOrder', 'data']);
  assert.deepEqual(u.data, np.out.u_le.data);
  assert.deepEqual(structuredClone(parse(np.file('u_le.npy'))).data, np.out.u_le.data);
  // toCOrder and toString of a Fortran-order U array.
  const f = parse(np.file('u_f.npy'));
  assert.equal(f.fortranOrder, true);
  assert.deepEqual(f.toCOrder().data, np.out.u_2d.data);
});

test('surrogate code points in U strings stay single UTF-16 units, as numpy tolist() gives them (lone ones too)', (t) => {
  // numpy's U holds any code point up to U+10FFFF, surrogates included (Python's str does
  // too): tolist() gives '\ud800', which a JS string holds; a TextDecoder made it U+FFFD.
  const np = numpy(t, `
words = ['\\ud800', 'a\\udfffb', '\\udbf1z', '\\ud83d\\ude00', 'x\\ude00\\ud83d', 'caf\\u00e9', '']
arrays = {
  'u': np.array(words, dtype='<U4'),
  'u_be': np.array(words, dtype='>U4'),
  'rec': np.array([(i, w, (w, w[::-1])) for i, w in enumerate(words)], dtype=[('id', '<i2'), ('s', '>U3'), ('p', '<U4', (2,))]),
  'rec_ld': np.array([(i, w) for i, w in enumerate(words)], dtype=[('ld', np.longdouble), ('s', '<U4')]),
}
out = {}
for k, a in arrays.items():
    np.save(k + '.npy', a)
    out[k] = a.tolist() if a.dtype.names is None else {n: np.ravel(a[n]).tolist() for n in a.dtype.names if n != 'ld'}
np.savez('all.npz', **arrays)
print(json.dumps(out))
`);
  if (!np) return;
  const e = np.out;
  assert.equal(e.u[0], '\ud800');
  assert.equal(e.u[4], 'x\ude00\ud83d');
  assert.equal(e.u[3], '\u{1F600}');
  const npz = openNpz(np.file('all.npz'));
  for (const k of Object.keys(e)) {
    for (const [where, r] of [[`${k}.npy`, parse(np.file(`${k}.npy`))], [`all.npz/${k}`, npz.get(k)]]) {
      if (k.startsWith('u')) assert.deepEqual(r.data, e[k], where);
      else {
        assert.deepEqual(r.data.s, e[k].s, where);
        if (e[k].p) assert.deepEqual(r.data.p.data, e[k].p, where);
      }
    }
  }
  npz.close();
});
