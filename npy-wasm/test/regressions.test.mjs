// Regressions found by a new user of the package (issue 43's follow-up), one test per kind of
// bug; the inputs and expected values are numpy's (test/numpy.mjs runs the project's Python).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse, openNpz, fetchNpy, fetchNpz, toNpy, MAX_DECODE_BYTES } from '../js/index.js';
import { numpy } from './numpy.mjs';
import { toList, same } from './expect.mjs';
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

test('fetchNpy rows that are empty and start past the first fetch: no rows, and no request for them (was a Range of bytes=n-(n-1), HTTP 416)', async (t) => {
  // Found by test/differential.test.mjs: an empty a[lo:hi] (hi <= lo) whose lo is past the
  // first FIRST_FETCH_BYTES asked the server for a range of no bytes.
  const pairs = [[-1, -3], [30000, 30000], [-5, 5], [39999, 0], [40000, 40001]];
  const np = numpy(t, `
pairs = ${JSON.stringify(pairs)}
a = np.arange(40000, dtype='<i4')
np.save('big.npy', a)
r = np.array([(i, 'r%d' % i) for i in range(20000)], dtype=[('id', '>i4'), ('s', '<U3')])
np.save('rec.npy', r)
print(json.dumps({'big': [list(a[lo:hi].shape) for lo, hi in pairs], 'rec': [list(r[lo:hi].shape) for lo, hi in pairs]}))
`);
  if (!np) return;
  for (const name of ['big', 'rec']) {
    const bytes = np.file(`${name}.npy`);
    assert.ok(bytes.length > 2 * 65536);
    const url = server.put(`${name}.npy`, bytes);
    for (const [i, rows] of pairs.entries()) {
      server.reset();
      const r = await fetchNpy(url, { rows });
      assert.deepEqual(r.shape, np.out[name][i], `${name} ${rows}`);
      assert.equal(name === 'big' ? r.data.length : r.data.s.length, 0, `${name} ${rows}`);
      assert.equal(server.stats.get(`/put/${name}.npy`).requests, 1, `${name} ${rows}: the first fetch only`);
    }
  }
});

test('fetchNpz: the tail, then the member (local header and bytes): 2 requests, no bytes beyond them', async (t) => {
  // numpy's archives (np.savez, stored; np.savez_compressed, deflated) larger than the tail
  // read, a 144-byte member among 300 kB.
  const np = numpy(t, `
import zipfile
big = np.arange(300000 // 8, dtype='<f8')
small = np.arange(2, dtype='<i8')
np.savez('s.npz', big=big, small=small)
np.savez_compressed('c.npz', big=np.random.default_rng(1).random(40000), small=small)
out = {}
for f in ('s.npz', 'c.npz'):
    z = zipfile.ZipFile(f)
    out[f] = {k: [z.getinfo(k + '.npy').compress_size, len(z.getinfo(k + '.npy').filename)] for k in ('big', 'small')}
out['small'] = small.tolist()
print(json.dumps(out))
`);
  if (!np) return;
  const { NPZ_TAIL_BYTES } = await import('../js/index.js');
  assert.equal(NPZ_TAIL_BYTES, 65536 + 98);
  for (const f of ['s.npz', 'c.npz']) {
    const bytes = np.file(f);
    assert.ok(bytes.length > 4 * NPZ_TAIL_BYTES, `${f}: ${bytes.length} bytes`);
    const url = server.put(f, bytes);
    for (const key of ['small', 'big']) {
      server.reset();
      const r = await fetchNpz(url, key);
      const s = server.stats.get(`/put/${f}`);
      const [compressed, nameLen] = np.out[f][key];
      // The local header: 30 bytes, the name (read as up to 3 bytes a character) and 32 of slack.
      const most = NPZ_TAIL_BYTES + 30 + 3 * nameLen + 32 + compressed;
      assert.ok(s.requests <= 2, `${f}/${key}: ${s.requests} requests`);
      assert.ok(s.bytes <= most, `${f}/${key}: ${s.bytes} bytes > ${most}`);
      if (key === 'small') assert.deepEqual(Array.from(r.data, Number), np.out.small);
    }
  }
});

test('toNpy: its own element type as is, a Uint8Array raw, anything else by value (np.array(values, dtype)); overflow an Error', (t) => {
  const cases = [
    ['<f4', new Int32Array([1, 2]), "np.array([1, 2], dtype='<f4')"],
    ['<f4', [1, 2.5], "np.array([1, 2.5], dtype='<f4')"],
    ['<f8', new Float32Array([0.1, -3]), "np.array(np.array([0.1, -3], dtype='<f4'), dtype='<f8')"],
    ['<f2', new Float32Array([0.1, 65504, 1e-8]), "np.array(np.array([0.1, 65504, 1e-8], dtype='<f4'), dtype='<f2')"],
    ['<f2', [0.1, 1 + 2 ** -11, 70000], "np.array([0.1, 1 + 2 ** -11, 70000], dtype='<f2')"],
    ['<f2', new Float64Array([1 + 2 ** -11 + 2 ** -30]), "np.array([1 + 2 ** -11 + 2 ** -30], dtype='<f2')"],
    ['<i2', new Float64Array([1, -2, 300]), "np.array([1, -2, 300], dtype='<i2')"],
    ['|i1', [-128, 127, 0], "np.array([-128, 127, 0], dtype='|i1')"],
    ['>i4', new Int32Array([1, -1]), "np.array([1, -1], dtype='>i4')"],
    ['<i4', new Uint8Array([1, 0, 0, 0, 255, 255, 255, 255]), "np.array([1, -1], dtype='<i4')"],
    ['<u8', [2 ** 53, 5n, 2n ** 64n - 1n], "np.array([2 ** 53, 5, 2 ** 64 - 1], dtype='<u8')"],
    ['<i8', new Int32Array([-5, 7]), "np.array([-5, 7], dtype='<i8')"],
    ['<u2', new BigInt64Array([65535n, 0n]), "np.array([65535, 0], dtype='<u2')"],
    ['|b1', new Uint8Array([0, 2, 1]), "np.array([0, 2, 1], dtype='|b1')"],
    ['|b1', [true, false, 1], "np.array([True, False, 1], dtype='|b1')"],
    ['<c8', [[1, 2], [3, -1], 4], "np.array([1 + 2j, 3 - 1j, 4], dtype='<c8')"],
    ['<c16', new Float32Array([1, 2, 3, 4]), "np.array([1 + 2j, 3 + 4j], dtype='<c16')"],
    ['<M8[D]', [0, 18262, null], "np.array([0, 18262, 'NaT'], dtype='<M8[D]')"],
    ['<m8[s]', new Int32Array([-3, 60]), "np.array([-3, 60], dtype='<m8[s]')"],
    ['<U3', ['ab', 'c\u00e9'], "np.array(['ab', 'c\\u00e9'], dtype='<U3')"],
    ['|S2', ['ab', ''], "np.array([b'ab', b''], dtype='|S2')"],
  ];
  const overflow = [
    ['|i1', [300], 'np.array([300], dtype="|i1")'],
    ['|u1', [-1], 'np.array([-1], dtype="|u1")'],
    ['<i4', [2 ** 31], 'np.array([2 ** 31], dtype="<i4")'],
    ['<u8', [2n ** 64n], 'np.array([2 ** 64], dtype="<u8")'],
    ['<i8', new BigUint64Array([2n ** 63n]), 'np.array([2 ** 63], dtype="<i8")'],
  ];
  const np = numpy(t, `
import io
cases = [${cases.map((c) => c[2]).join(', ')}]
out = {'bytes': [], 'overflow': []}
for a in cases:
    f = io.BytesIO()
    np.save(f, a)
    out['bytes'].append(f.getvalue().hex())
for expr in [${overflow.map((c) => JSON.stringify(c[2])).join(', ')}]:
    try:
        eval(expr)
        out['overflow'].append(None)
    except OverflowError as e:
        out['overflow'].append(str(e))
print(json.dumps(out))
`);
  if (!np) return;
  cases.forEach(([descr, data, expr], i) => {
    const shape = [expr.includes('1 + 2j, 3 + 4j') ? 2 : (Array.isArray(data) ? data.length : null) ?? 0];
    let n = shape[0];
    if (!Array.isArray(data)) {
      n = data.length;
      if (data instanceof Uint8Array && descr !== '|b1') n = data.length / 4;
      if (descr === '<c16') n = data.length / 2;
    }
    const out = toNpy({ dtype: descr, shape: [n], data });
    assert.equal(Buffer.from(out).toString('hex'), np.out.bytes[i], `${descr} from ${data.constructor.name} (${expr})`);
  });
  overflow.forEach(([descr, data, expr], i) => {
    assert.ok(np.out.overflow[i], `numpy raises OverflowError for ${expr}`);
    assert.throws(() => toNpy({ dtype: descr, shape: [1], data }), (e) => e instanceof RangeError && /out of bounds/.test(e.message), expr);
  });
  assert.throws(() => toNpy({ dtype: '<i4', shape: [1], data: [1.5] }), /whole number/);
  assert.throws(() => toNpy({ dtype: '<f4', data: new Float32Array(2) }), (e) => e instanceof TypeError && /shape/.test(e.message));
  assert.throws(() => toNpy({ shape: [1], data: [1] }), /dtype/);
  for (const descr of ['|O', '|V8', "[('a', '<i4')]"]) {
    assert.throws(() => toNpy({ dtype: descr, shape: [1], data: new Uint8Array(8) }), /not supported/, descr);
  }
  assert.throws(() => toNpy({ dtype: '<U2', shape: [1], data: new Int32Array(2) }), TypeError);
});

test('datetime64 / timedelta64 scalars in an object array keep their unit: {type, unit, value}', (t) => {
  const np = numpy(t, `
vals = [np.datetime64('2020-01-01'), np.timedelta64(5, 'ms'), np.datetime64('NaT', 's'),
        np.datetime64(7, '10ms'), np.timedelta64(3, 'W'), 1]
np.save('t.npy', np.array(vals, dtype=object))
out = []
for v in vals:
    if isinstance(v, (np.datetime64, np.timedelta64)):
        unit, count = np.datetime_data(v.dtype)
        out.append({'type': type(v).__name__, 'unit': (str(count) if count != 1 else '') + unit,
                    'value': None if np.isnat(v) else int(v.astype('int64'))})
    else:
        out.append(v)
print(json.dumps(out))
`);
  if (!np) return;
  const r = parse(np.file('t.npy'));
  const got = r.data.map((v) => (v && typeof v === 'object'
    ? { type: v.type, unit: v.unit, value: v.value === null ? null : Number(v.value) } : v));
  assert.deepEqual(got, np.out);
  assert.equal(typeof r.data[0].value, 'bigint');
});

test('the README\'s object allow-list: datetime.date, Decimal, OrderedDict, Fraction are refused by name', (t) => {
  const np = numpy(t, `
import datetime, decimal, collections, fractions
vals = {'date': datetime.date(2020, 1, 2), 'decimal': decimal.Decimal('1.5'),
        'ordereddict': collections.OrderedDict(a=1), 'fraction': fractions.Fraction(1, 3)}
out = {}
for k, v in vals.items():
    a = np.empty(1, dtype=object)
    a[0] = v
    np.save(k + '.npy', a)
    out[k] = type(v).__module__ + '.' + type(v).__qualname__
print(json.dumps(out))
`);
  if (!np) return;
  for (const [k, cls] of Object.entries(np.out)) {
    const [mod, name] = [cls.slice(0, cls.lastIndexOf('.')), cls.slice(cls.lastIndexOf('.') + 1)];
    assert.throws(() => parse(np.file(`${k}.npy`)), (e) => notTrap(e) && e.message.includes(name) && e.message.includes(mod.replace(/^_/, '')), cls);
  }
});

test('dtype.fields: leaves {descr, name, shape?}, nested records {fields} (as index.d.ts types them)', (t) => {
  const np = numpy(t, `
dt = np.dtype([('a', [('x', '<i4'), ('y', '<f8', (2,))]), ('b', '<U3')])
np.save('r.npy', np.zeros(2, dtype=dt))
def fields(d):
    out = {}
    for n in d.names:
        f = d.fields[n][0]
        if f.names:
            out[n] = {'fields': fields(f)}
        else:
            base, shape = (f.subdtype if f.subdtype else (f, ()))
            e = {'descr': base.str, 'name': base.name}
            if shape:
                e['shape'] = list(shape)
            out[n] = e
    return out
print(json.dumps(fields(dt)))
`);
  if (!np) return;
  const r = parse(np.file('r.npy'));
  assert.deepEqual(JSON.parse(JSON.stringify(r.dtype.fields)), np.out);
});

test('a nested record of no fields is an empty object of columns, in field order (direct and npy-core paths, npz)', (t) => {
  // numpy's tolist() gives such a field as (); it has no leaf and so no column, and parse()
  // left it out of data and dtype.fields (found by test/differential.test.mjs with seed 1).
  const np = numpy(t, `
arrays = {
  'mid': np.array([(1, (), 'ab'), (2, (), 'c')], dtype=[('a', '<i4'), ('e', []), ('s', '<U2')]),
  'ld': np.array([(1, (), 'ab')], dtype=[('ld', np.longdouble), ('e', []), ('s', '<U2')]),
  'only': np.zeros((3, 2), dtype=[('e', [])]),
  'nested': np.asfortranarray(np.zeros((2, 3), dtype=[('n', [('e', []), ('x', 'u1')]), ('z', [])])),
  'zero_d': np.zeros((), dtype=[('n', [('x', '<i2'), ('e', [])]), ('v', 'V3')]),
}
def fields(d):
    out = {}
    for n in d.names:
        f = d.fields[n][0]
        out[n] = {'fields': fields(f)} if f.names is not None else {'descr': f.str, 'name': f.name}
    return out
def enc(a):
    if a.ndim > 0:
        return [enc(a[i, ...]) for i in range(a.shape[0])]
    if a.dtype.names is not None:
        return {n: enc(a[n]) for n in a.dtype.names}
    return a.tobytes().hex() if a.dtype.kind == 'V' else float(a) if a.dtype.kind == 'f' else a.item()
out = {}
for k, a in arrays.items():
    np.save(k + '.npy', a)
    out[k] = {'fields': fields(a.dtype), 'list': enc(a)}
np.savez('all.npz', **arrays)
print(json.dumps(out))
`);
  if (!np) return;
  const keys = (f) => Object.fromEntries(Object.entries(f).map(([n, v]) => [n, v.fields ? keys(v.fields) : null]));
  const dataKeys = (d, f) => Object.fromEntries(Object.keys(d).map((n) => [n, f[n].fields ? dataKeys(d[n], f[n].fields) : null]));
  const npz = openNpz(np.file('all.npz'));
  for (const [k, e] of Object.entries(np.out)) {
    for (const [where, r] of [[`${k}.npy`, parse(np.file(`${k}.npy`))], [`all.npz/${k}`, npz.get(k)]]) {
      assert.deepEqual(JSON.parse(JSON.stringify(r.dtype.fields)), e.fields, `${where}: dtype.fields`);
      // Field order, at every level, in data as in dtype.fields as in numpy.
      assert.deepEqual(JSON.stringify(dataKeys(r.data, r.dtype.fields)), JSON.stringify(keys(e.fields)), `${where}: field order`);
      same(toList(r), e.list, where);
    }
  }
  npz.close();
});
