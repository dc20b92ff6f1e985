// The project's Python with numpy, for tests whose inputs and expected values numpy makes at
// test time (NPY_PYTHON, else $CARGO_TARGET_DIR/xtask-venv or ../target/xtask-venv). Without
// it such a test is skipped with NOT CHECKED on stderr, or fails under NPY_REQUIRE_PYTHON=1.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found;

/** The path of a Python that imports numpy, or null. */
export function python() {
  if (found !== undefined) return found;
  const candidates = [
    process.env.NPY_PYTHON,
    process.env.CARGO_TARGET_DIR && `${process.env.CARGO_TARGET_DIR}/xtask-venv/bin/python`,
    fileURLToPath(new URL('../../target/xtask-venv/bin/python', import.meta.url)),
  ].filter(Boolean);
  found = null;
  for (const p of candidates) {
    if (!existsSync(p)) continue;
    try {
      execFileSync(p, ['-c', 'import numpy'], { stdio: 'ignore' });
      found = p;
      break;
    } catch { /* no numpy there */ }
  }
  return found;
}

/**
 * Runs `script` with numpy in a fresh temporary directory (its cwd); returns `{ dir, out, file }`:
 * `out` the JSON the script printed last (or null), `file(name)` the bytes of a file it wrote.
 * Returns null (the test skipped) when there is no Python with numpy, unless
 * NPY_REQUIRE_PYTHON=1, where it fails.
 */
export function numpy(t, script) {
  const py = python();
  if (!py) {
    if (process.env.NPY_REQUIRE_PYTHON === '1') assert.fail('NPY_REQUIRE_PYTHON=1 and no Python with numpy');
    console.error(`NOT CHECKED: ${t.name} needs the project's Python (cargo xtask venv)`);
    t.skip('no numpy');
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), 'npy-wasm-'));
  const text = execFileSync(py, ['-c', `import json, numpy as np\n${script}`], { cwd: dir, maxBuffer: 64 << 20 }).toString().trim();
  const last = text.split('\n').pop();
  return {
    dir,
    out: last ? JSON.parse(last) : null,
    file: (name) => new Uint8Array(readFileSync(join(dir, name))),
  };
}
