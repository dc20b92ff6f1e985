// Differential test against numpy: test/differential.py writes CASES random arrays with a fixed
// seed (records of every leaf dtype, both byte orders per field, subarrays, nested records,
// packed, aligned and gapped layouts, 0-d / 1-d / N-d, Fortran order, data past 64 KiB blocks,
// strings with non-ASCII, astral, surrogate and NUL code points, data at offsets off a multiple
// of 8) and the values np.load reads back; parse() must give every value of every column (the
// string columns read, so made) as numpy's, with the header's shape, order and descr, and
// fetchNpy with random rows numpy's b[lo:hi]. A mismatch names the case's file, its dtype and
// the first differing element. Found so far: lone surrogate code points made U+FFFD (34 cases
// of this seed), nested records of no fields left out (seeds 1 and 3; FIXED cases 3-5 of
// differential.py), empty rows past the first fetch an HTTP 416 (9 cases). A failure another
// seed finds is added to FIXED, so every run holds it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, fetchNpy } from '../js/index.js';
import { numpy } from './numpy.mjs';
import { readJson, toList, same } from './expect.mjs';
import { startServer } from './server.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.close(); });

// Another seed or count for a run by hand: NPY_DIFF_SEED=7 NPY_DIFF_CASES=2000 node --test
// test/differential.test.mjs (a failure it finds is kept as a case of the fixed seed's run).
const SEED = Number(process.env.NPY_DIFF_SEED ?? 20261206);
const CASES = Number(process.env.NPY_DIFF_CASES ?? 300);

test(`differential: ${CASES} random records and plain arrays (seed ${SEED}): parse, and fetchNpy rows, give numpy's values`, async (t) => {
  const script = `SEED = ${SEED}\nCASES = ${CASES}\n${readFileSync(new URL('./differential.py', import.meta.url), 'utf8')}`;
  let ms = performance.now();
  const np = numpy(t, script);
  if (!np) return;
  const numpyMs = performance.now() - ms;
  ms = performance.now();
  const { cases } = readJson(join(np.dir, 'cases.json'));
  assert.equal(cases.length, CASES);
  const failures = [];
  let large = 0;
  for (const c of cases) {
    const where = `${c.file} (dtype ${c.dtype}, shape [${c.shape}]${c.fortran ? ', Fortran order' : ''})`;
    try {
      const r = parse(np.file(c.file));
      assert.deepEqual(r.shape, c.shape, `${where}: shape`);
      assert.equal(r.fortranOrder, c.fortran, `${where}: fortranOrder`);
      assert.equal(`'${r.dtype.descr}'`, c.descr.startsWith("'") ? c.descr : `'${c.descr}'`, `${where}: descr`);
      if (c.names) assert.deepEqual(Object.keys(r.data), c.names, `${where}: field order`);
      same(toList(r), c.data, where);
      if (c.rows) {
        // fetchNpy's rows (the header's, then the rows' bytes; Fortran order: the whole file,
        // then cut): numpy's b[lo:hi].
        const [lo, hi] = c.rows.taken;
        const f = await fetchNpy(server.put(c.file, np.file(c.file)), { rows: c.rows.rows });
        const at = `${where} fetchNpy rows [${c.rows.rows}]`;
        assert.deepEqual(f.rows, [lo, hi], `${at}: rows taken`);
        assert.deepEqual(f.shape, [hi - lo, ...c.shape.slice(1)], `${at}: shape`);
        same(toList(f), c.data.slice(lo, hi), at);
      }
    } catch (e) {
      failures.push(`${where}\n    ${String(e.message).split('\n')[0]}`);
    }
    if (c.nbytes > 64 * 1024) large++;
  }
  console.log(`differential: ${cases.length} cases (${large} with more than 64 KiB of data), ${failures.length} differ from numpy; numpy ${Math.round(numpyMs)} ms, parse and compare ${Math.round(performance.now() - ms)} ms`);
  // What the cases hold (so that a change of the generator keeps testing it).
  const held = {};
  for (const c of cases) for (const f of c.features) held[f] = (held[f] ?? 0) + 1;
  console.log(`differential: cases holding each: ${JSON.stringify(held)}`);
  const REQUIRED = [
    'record', 'nested record', 'plain', 'subarray', 'subarray of records', 'record of no fields',
    'gap before a field', 'bytes after the fields', 'big-endian', 'zero width',
    'b1', 'i1', 'i2', 'i4', 'i8', 'u1', 'u2', 'u4', 'u8', 'f2', 'f4', 'f8', 'c8', 'c16', 'M', 'm', 'U', 'S', 'V',
    'U all ASCII', 'U non-ASCII', 'U astral', 'U surrogate', 'data offset not a multiple of 8',
    '0-d', '1-d', 'N-d', 'Fortran order', 'past 64 KiB', 'rows past 64 KiB',
  ];
  for (const f of REQUIRED) assert.ok(held[f] >= (f === 'rows past 64 KiB' ? 1 : 3), `only ${held[f] ?? 0} cases hold ${f}`);
  assert.ok(large >= 20, `only ${large} cases past one 64 KiB block`);
  if (failures.length) assert.fail(`${failures.length} of ${cases.length} cases differ from numpy:\n${failures.join('\n')}`);
});
