// .npz archives numpy wrote (fixtures/npz/manifest.json): keys as NpzFile.files, members'
// values as numpy's, stored and deflated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openNpz } from '../js/index.js';
import { readJson, toList, same } from './expect.mjs';

const DIR = new URL('../../fixtures/npz/', import.meta.url);
const manifest = readJson(new URL('manifest.json', DIR));

test('fixtures/npz: keys and members equal numpy\'s', () => {
  let members = 0;
  for (const a of manifest.archives) {
    const npz = openNpz(readFileSync(new URL(a.file, DIR)));
    try {
      assert.deepEqual(npz.keys, a.files, a.file);
      for (const [key, m] of Object.entries(a.members ?? {})) {
        if (!('data' in m)) continue;
        const r = npz.get(key);
        assert.deepEqual(r.shape, m.shape, `${a.file}/${key}`);
        same(toList(r), m.data, `${a.file}/${key}`);
        members++;
      }
    } finally {
      npz.close();
    }
  }
  assert.ok(members > 10, `${members} members`);
});
