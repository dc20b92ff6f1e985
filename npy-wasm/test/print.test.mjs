// toString() against numpy's str() of the same files, asked of the project's Python at test
// time (NPY_PYTHON, else $CARGO_TARGET_DIR/xtask-venv or ../target/xtask-venv). Without it
// the check says NOT CHECKED on stderr, or fails under NPY_REQUIRE_PYTHON=1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from '../js/index.js';

const FIX = fileURLToPath(new URL('../../fixtures/', import.meta.url));

function python() {
  const candidates = [
    process.env.NPY_PYTHON,
    process.env.CARGO_TARGET_DIR && `${process.env.CARGO_TARGET_DIR}/xtask-venv/bin/python`,
    fileURLToPath(new URL('../../target/xtask-venv/bin/python', import.meta.url)),
  ].filter(Boolean);
  for (const p of candidates) {
    if (!existsSync(p)) continue;
    try {
      execFileSync(p, ['-c', 'import numpy'], { stdio: 'ignore' });
      return p;
    } catch { /* no numpy there */ }
  }
  return null;
}

test("toString() is numpy's str()", (t) => {
  const py = python();
  if (!py) {
    if (process.env.NPY_REQUIRE_PYTHON === '1') assert.fail('NPY_REQUIRE_PYTHON=1 and no Python with numpy');
    console.error("NOT CHECKED: toString() against numpy's str() needs the project's Python (cargo xtask venv)");
    t.skip('no numpy');
    return;
  }
  // Left out: longdouble (f16, c32), printed from its nearest double (npy-print's documented
  // limit), and big-endian generic timedelta64 (m8_be_*), which numpy pads to int64's full
  // width and npy-print does not (npy-print's, found here, reported with issue 43).
  const files = readdirSync(FIX).filter((n) => n.endsWith('.npy') && !/^(f16|c32|m8_be)_/.test(n));
  const script = `
import json, sys, numpy as np
out = {}
for name in json.load(sys.stdin):
    a = np.load(sys.argv[1] + name, max_header_size=1 << 20)
    out[name] = str(a)
print(json.dumps(out))
`;
  const strs = JSON.parse(execFileSync(py, ['-c', script, FIX], { input: JSON.stringify(files), maxBuffer: 64 << 20 }));
  let n = 0;
  const wrong = [];
  for (const name of files) {
    const r = parse(readFileSync(FIX + name));
    if (r.toString() !== strs[name]) wrong.push(name);
    n++;
  }
  assert.deepEqual(wrong, [], 'toString() differs from str()');
  assert.ok(n > 190, `${n} files`);
});
