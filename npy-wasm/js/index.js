// npy-wasm: NumPy .npy and .npz in the browser and in Node, through WebAssembly.
// The Rust half (src/lib.rs) parses headers, data, archives and pickles; this file turns what it
// returns into typed arrays, strings and objects, and does the fetching. See README.md.
import init, * as wasm from '../pkg/npy_wasm.js';

const WASM_URL = new URL('../pkg/npy_wasm_bg.wasm', import.meta.url);
if (typeof process !== 'undefined' && process.versions && process.versions.node) {
  const { readFileSync } = await import('node:fs');
  wasm.initSync({ module: readFileSync(WASM_URL) });
} else {
  await init({ module_or_path: WASM_URL });
}

/** Whether the runtime has Float16Array (else float16 values come as a Float32Array). */
export const HAS_FLOAT16 = typeof globalThis.Float16Array === 'function';

/** Bytes fetched first by fetchNpy / fetchNpz: the header (or the zip directory) and, for small
 * row ranges, the rows too. */
export const FIRST_FETCH_BYTES = 64 * 1024;

/**
 * The largest input decoded in WebAssembly (bytes): a file that is not viewed in place, an
 * archive, and each .npz member as it inflates (its declared size, checked before a byte is
 * inflated; npy-npz never inflates a member past it). Its memory holds at most 4 GiB, and a decode holds the input, the columns it makes
 * (about the input's size) and their strings: 1 GiB keeps that within it, so a larger input is
 * an Error here rather than an allocation failure (a trap) in wasm. Zero-copy parses do not
 * pass through wasm and have no such limit.
 */
export const MAX_DECODE_BYTES = 2 ** 30;

function checkDecodeSize(n, what) {
  if (n > MAX_DECODE_BYTES) {
    throw new Error(`${what} of ${n} bytes is larger than the ${MAX_DECODE_BYTES} bytes (MAX_DECODE_BYTES) decoded in WebAssembly; read a .npy file in rows (fetchNpy with rows) or as a little-endian number array, which is viewed in place`);
  }
}

/** Bytes fetchNpz fetches first from an archive's end, and what npy-npz reads from the end
 * to open it: 64 KiB + 98 (the zip end record after the longest comment zip allows, and the
 * zip64 records before it); a directory in them takes no other request. */
export const NPZ_TAIL_BYTES = wasm._npzTailBytes();

/** The most fetch-and-retry rounds for one step of fetchNpz (wasm's MAX_RANGE_ROUNDS). */
const MAX_ROUNDS = 16;

const NAT = -(2n ** 63n);

function asBytes(input) {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (typeof SharedArrayBuffer !== 'undefined' && input instanceof SharedArrayBuffer) {
    return new Uint8Array(input);
  }
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError('expected an ArrayBuffer or a Uint8Array');
}

function product(shape) {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

function f16ToNumber(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** A typed array of `plain` ({kind, ctor}) over `bytes` from `offset`: in place when aligned. */
function typedView(bytes, offset, length, plain) {
  if (plain.kind === 'float16' && !HAS_FLOAT16) {
    const u16 = typedView(bytes, offset, length, { kind: 'number', ctor: 'Uint16Array' });
    return Float32Array.from(u16, f16ToNumber);
  }
  const Ctor = globalThis[plain.ctor];
  const n = plain.kind === 'complex' ? length * 2 : length;
  const start = bytes.byteOffset + offset;
  if (start % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(bytes.buffer, start, n);
  const copy = bytes.slice(offset, offset + n * Ctor.BYTES_PER_ELEMENT);
  return new Ctor(copy.buffer, 0, n);
}

let utf16;
let ascii;

/** Values made when first read: see `setValue`. */
class Lazy {
  constructor(make) {
    this.make = make;
  }
}

/**
 * Sets `obj[key]` to `value`; a `Lazy` value is made when the property is first read (or
 * copied: spread, JSON.stringify, structuredClone, assert.deepEqual all read it), and the
 * property is then a plain data property holding it. A string column's 1M JS strings cost
 * more than the rest of a records parse together (issue 43): a caller who reads only the
 * number columns does not pay for them.
 */
function setValue(obj, key, value) {
  if (!(value instanceof Lazy)) {
    obj[key] = value;
    return;
  }
  const settle = (v) => Object.defineProperty(obj, key, { value: v, writable: true, enumerable: true, configurable: true });
  let made;
  Object.defineProperty(obj, key, {
    get() {
      if (made === undefined) {
        made = value.make();
        // A frozen or sealed object keeps the accessor, which gives the same Array each time.
        if (Object.isExtensible(obj)) settle(made);
      }
      return made;
    },
    set: settle,
    enumerable: true,
    configurable: true,
  });
}

/** UTF-16 units as a JS string, each unit kept (lone surrogates too), 8192 at a call. */
function unitsText(units) {
  let text = '';
  for (let i = 0; i < units.length; i += 8192) text += String.fromCharCode.apply(null, units.subarray(i, i + 8192));
  return text;
}

/** The JS strings of a `strings` column: its text decoded once, then one slice a string. */
function stringValues(col) {
  let text;
  if (col.ascii) {
    ascii ??= new TextDecoder();
    text = ascii.decode(col.ascii);
  } else if (col.surrogates) {
    // numpy's U holds surrogate code points as Python's str does (tolist() gives '\ud800');
    // a TextDecoder would make a lone one U+FFFD.
    text = unitsText(col.text);
  } else {
    utf16 ??= new TextDecoder('utf-16le');
    text = utf16.decode(col.text);
  }
  const ends = col.ends;
  const out = new Array(ends.length - 1);
  for (let i = 1; i < ends.length; i++) out[i - 1] = text.substring(ends[i - 1], ends[i]);
  return out;
}

/** A column's values (a `Lazy` for strings, made when first read). */
function columnValues(col) {
  switch (col.kind) {
    case 'number': case 'bool': case 'time': case 'complex': case 'float16': {
      const el = col.kind === 'float16' ? 2 : globalThis[col.ctor].BYTES_PER_ELEMENT;
      const n = col.bytes.byteLength / el / (col.kind === 'complex' ? 2 : 1);
      return typedView(col.bytes, 0, n, col);
    }
    case 'strings':
      return new Lazy(() => stringValues(col));
    case 'void': {
      const out = [];
      for (let at = 0; at + col.width <= col.bytes.length && col.width > 0; at += col.width) {
        out.push(col.bytes.subarray(at, at + col.width));
      }
      if (col.width === 0) for (let i = 0; i < col.count * product(col.subshape); i++) out.push(new Uint8Array(0));
      return out;
    }
    default:
      return col.values;
  }
}

function dtypeOf(info) {
  const d = { descr: info.descr, name: info.name };
  if (info.unit !== undefined) d.unit = info.unit;
  return d;
}

function present(d, shape) {
  if (d.objects) return { data: d.objects, fields: undefined };
  if (d.record) return { data: d.record, fields: undefined };
  const cols = d.columns;
  if (cols.length === 1 && cols[0].path.length === 0) {
    const c = cols[0];
    return { data: columnValues(c), unit: c.unit, fields: undefined };
  }
  const data = {};
  const fields = {};
  for (const c of cols) {
    let o = data;
    let f = fields;
    for (const name of c.path.slice(0, -1)) {
      o = o[name] ??= {};
      // A nested record's entry: { fields } of its own.
      f = (f[name] ??= { fields: {} }).fields;
    }
    const leaf = c.path[c.path.length - 1];
    if (c.kind === 'record') {
      // A nested record of no fields (numpy's tolist() gives ()): an empty object of columns.
      o[leaf] ??= {};
      f[leaf] ??= { fields: {} };
      continue;
    }
    const values = columnValues(c);
    if (c.subshape.length && c.kind !== 'values') {
      const sub = {};
      setValue(sub, 'data', values);
      sub.shape = [...shape, ...c.subshape];
      o[leaf] = sub;
    } else {
      setValue(o, leaf, values);
    }
    f[leaf] = { descr: c.descr, name: c.name };
    if (c.unit !== undefined) f[leaf].unit = c.unit;
    if (c.subshape.length) f[leaf].shape = c.subshape;
  }
  return { data, fields };
}

/** Reorders `src` (count elements of k values each, Fortran order of `shape`) into C order. */
function permute(src, shape, k) {
  const n = product(shape);
  const out = new src.constructor(src.length);
  const nd = shape.length;
  const stride = [];
  let s = 1;
  for (let i = 0; i < nd; i++) { stride.push(s); s *= shape[i]; }
  const idx = new Array(nd).fill(0);
  let f = 0;
  for (let c = 0; c < n; c++) {
    for (let j = 0; j < k; j++) out[c * k + j] = src[f * k + j];
    for (let d = nd - 1; d >= 0; d--) {
      idx[d]++;
      f += stride[d];
      if (idx[d] < shape[d]) break;
      f -= stride[d] * shape[d];
      idx[d] = 0;
    }
  }
  return out;
}

function reorder(data, shape) {
  const n = product(shape);
  if (n <= 1) return data;
  if (ArrayBuffer.isView(data) || Array.isArray(data)) return permute(data, shape, data.length / n);
  if (data && data.shape && data.data && (ArrayBuffer.isView(data.data) || Array.isArray(data.data))) {
    return { data: permute(data.data, shape, data.data.length / n), shape: data.shape };
  }
  const out = {};
  for (const [k, v] of Object.entries(data)) out[k] = reorder(v, shape);
  return out;
}

/** A parsed array: `dtype`, `shape`, `fortranOrder`, `data` (see README.md), and its methods. */
class NpyArray {
  #format;

  constructor(dtype, shape, fortranOrder, data, format) {
    this.dtype = dtype;
    this.shape = shape;
    this.fortranOrder = fortranOrder;
    setValue(this, 'data', data);
    this.#format = format;
  }

  /** The same array with its data in C order (itself when it is already). */
  toCOrder() {
    if (!this.fortranOrder) return this;
    const c = new NpyArray(this.dtype, this.shape, false, reorder(this.data, this.shape), this.#format);
    if (this.rows) c.rows = this.rows;
    return c;
  }

  /** numpy's str() of the array. */
  toString() {
    return this.#format();
  }
}

function result(info, data, fields, bytes) {
  const dtype = dtypeOf(info);
  if (fields) dtype.fields = fields;
  return new NpyArray(dtype, info.shape, info.fortranOrder, data, () => wasm._format(bytes));
}

/** Bytes of a file handed to wasm for its header at first: np.save's headers take 128. */
const HEADER_PREFIX_BYTES = 1024;

// The header of np.save's commonest files without a call into wasm: a version 1.0 header of
// exactly the form np.save writes, of a little-endian (or one-byte) bool, integer, float or
// complex dtype. Anything else, and anything this does not accept, goes to npy-core's parser
// in wasm, which has the final word (test/header.test.mjs checks that both agree wherever
// this one answers). It exists because a zero-copy parse is the header alone, and crossing
// into wasm and back was 3x npyjs's whole parse.
const SIMPLE_HEADER = /^\{'descr': '([<|])([biufc])(\d{1,2})', 'fortran_order': (False|True), 'shape': \((?:|(0|[1-9]\d{0,14}),|((?:0|[1-9]\d{0,14})(?:, (?:0|[1-9]\d{0,14}))+))\), \} *\n$/;
const SIMPLE_TYPES = {
  b1: ['bool', 'Uint8Array', 'bool'],
  i1: ['int8', 'Int8Array', 'number'],
  u1: ['uint8', 'Uint8Array', 'number'],
  i2: ['int16', 'Int16Array', 'number'],
  u2: ['uint16', 'Uint16Array', 'number'],
  i4: ['int32', 'Int32Array', 'number'],
  u4: ['uint32', 'Uint32Array', 'number'],
  i8: ['int64', 'BigInt64Array', 'number'],
  u8: ['uint64', 'BigUint64Array', 'number'],
  f2: ['float16', 'Float16Array', 'float16'],
  f4: ['float32', 'Float32Array', 'number'],
  f8: ['float64', 'Float64Array', 'number'],
  c8: ['complex64', 'Float32Array', 'complex'],
  c16: ['complex128', 'Float64Array', 'complex'],
};

/** The header as wasm's _readHeader gives it, for np.save's simple headers; else null. */
export function _simpleHeader(bytes, fileLen) {
  if (bytes.length < 10 || bytes[0] !== 0x93 || bytes[1] !== 0x4e || bytes[2] !== 0x55
    || bytes[3] !== 0x4d || bytes[4] !== 0x50 || bytes[5] !== 0x59 || bytes[6] !== 1 || bytes[7] !== 0) {
    return null;
  }
  const end = 10 + (bytes[8] | (bytes[9] << 8));
  if (end > bytes.length || end > 10 + 4096) return null;
  const text = String.fromCharCode.apply(null, bytes.subarray(10, end));
  const m = SIMPLE_HEADER.exec(text);
  if (!m) return null;
  const code = m[2] + m[3];
  const t = SIMPLE_TYPES[code];
  const itemsize = Number(m[3]);
  if (!t || (m[1] === '|') !== (itemsize === 1)) return null;
  const shape = m[5] !== undefined ? [Number(m[5])] : m[6] !== undefined ? m[6].split(', ').map(Number) : [];
  let count = 1;
  for (const d of shape) count *= d;
  const nbytes = count * itemsize;
  if (!Number.isSafeInteger(nbytes) || end + nbytes > fileLen) return null;
  return {
    descr: `${m[1]}${code}`, name: t[0], shape, fortranOrder: m[4] === 'True', dataOffset: end,
    itemsize, count, nbytes, hasObject: false, plain: { kind: t[2], ctor: t[1] },
  };
}

/** The header of the .npy file whose first bytes are `bytes`, of `fileLen` bytes in all. */
function readHeader(bytes, fileLen) {
  const simple = _simpleHeader(bytes, fileLen);
  if (simple) return simple;
  let info = JSON.parse(wasm._readHeader(bytes.subarray(0, HEADER_PREFIX_BYTES), fileLen));
  if (info.need !== undefined) {
    if (info.need > bytes.length) {
      throw new Error(`truncated .npy file: its header takes ${info.need} bytes, the file has ${bytes.length}`);
    }
    info = JSON.parse(wasm._readHeader(bytes.subarray(0, info.need), fileLen));
  }
  return info;
}

/**
 * Parses a .npy file.
 * @param {ArrayBuffer|Uint8Array} input the file's bytes
 */
export function parse(input) {
  const bytes = asBytes(input);
  const info = readHeader(bytes, bytes.length);
  const plain = info.plain;
  if (plain) {
    const data = typedView(bytes, info.dataOffset, info.count, plain);
    if (plain.unit !== undefined) info.unit = plain.unit;
    return result(info, data, undefined, bytes);
  }
  checkDecodeSize(bytes.length, 'a .npy file');
  const d = wasm._decode(bytes);
  const { data, fields, unit } = present(d, info.shape);
  if (unit !== undefined) info.unit = unit;
  return result(info, data, fields, bytes);
}

/**
 * Opens a .npz archive held in memory: its keys, and each member parsed when asked.
 * @param {ArrayBuffer|Uint8Array} input the archive's bytes
 */
export function openNpz(input) {
  const bytes = asBytes(input);
  checkDecodeSize(bytes.length, 'a .npz archive');
  const npz = new wasm._Npz(bytes);
  const keys = npz.keys();
  let closed = false;
  const member = (key) => {
    if (closed) throw new Error(`the .npz archive is closed (close() was called): member '${key}' cannot be read`);
    // The declared size bounds what is inflated (npy-npz stops a member there): checked
    // before a byte is inflated.
    checkDecodeSize(npz.size(key), `member '${key}'`);
    return npz.member(key);
  };
  return {
    keys,
    get(key) { return parse(member(key)); },
    bytes(key) { return member(key); },
    close() {
      if (closed) return;
      closed = true;
      npz.free();
    },
  };
}

function contentRange(res) {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get('Content-Range') ?? '');
  if (!m) throw new Error(`the server answered a range request without a Content-Range giving the size`);
  return { start: Number(m[1]), end: Number(m[2]) + 1, total: Number(m[3]) };
}

async function getRange(f, url, start, end) {
  const res = await f(url, { headers: { Range: `bytes=${start}-${end - 1}` } });
  if (res.status !== 206) throw new Error(`${url}: HTTP ${res.status} to a request for bytes ${start}-${end - 1}`);
  const body = new Uint8Array(await res.arrayBuffer());
  if (body.length !== end - start) {
    throw new Error(`${url}: ${body.length} bytes for a range of ${end - start}`);
  }
  return body;
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** `options.rows` checked: undefined, or two whole numbers (before any request). */
function checkRows(rows) {
  if (rows === undefined) return undefined;
  if (!(Array.isArray(rows) && rows.length === 2 && rows.every(Number.isSafeInteger))) {
    throw new TypeError('fetchNpy: rows must be [start, end], two whole numbers');
  }
  return rows;
}

/**
 * The rows [lo, hi) that numpy's a[start:end] takes of `n` rows: a negative bound counts from
 * the end (n + bound), bounds are clamped to [0, n], and an end at or before the start gives
 * no rows. A 0-d array has no rows: an Error, as numpy's IndexError.
 */
function rowBounds(rows, shape, url) {
  if (shape.length === 0) {
    throw new Error(`${url}: rows [${rows}] of a 0-d array (shape ()), which has no rows (numpy: IndexError, too many indices)`);
  }
  const n = shape[0];
  const at = (i) => (i < 0 ? Math.max(0, i + n) : Math.min(i, n));
  const lo = at(rows[0]);
  return [lo, Math.max(lo, at(rows[1]))];
}

function sliceRows(r, [lo, hi]) {
  const c = r.toCOrder();
  const n = c.shape[0];
  const per = product(c.shape.slice(1));
  const cut = (d) => {
    if (ArrayBuffer.isView(d) || Array.isArray(d)) {
      const k = d.length / Math.max(1, n * per);
      return d.slice(lo * per * k, hi * per * k);
    }
    if (d && d.shape && d.data) return { data: cut(d.data), shape: [hi - lo, ...d.shape.slice(1)] };
    return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, cut(v)]));
  };
  const out = new NpyArray(c.dtype, [hi - lo, ...c.shape.slice(1)], false, cut(c.data), () => {
    throw new Error('toString() of rows cut from a Fortran-order or object array is not supported: parse the whole file');
  });
  out.rows = [lo, hi];
  return out;
}

/**
 * Fetches a .npy file by HTTP Range requests: the first FIRST_FETCH_BYTES (the header), then
 * only the bytes of the rows asked for (`rows: [start, end)`, along the first dimension, as
 * numpy's a[start:end]: negative bounds count from the end, bounds are clamped, end <= start
 * gives no rows; a 0-d array is an Error).
 * @param {string|URL} url
 * @param {{rows?: [number, number], fetch?: typeof fetch}} [options]
 */
export async function fetchNpy(url, options = {}) {
  const f = options.fetch ?? globalThis.fetch;
  const rows = checkRows(options.rows);
  const first = await f(url, { headers: { Range: `bytes=0-${FIRST_FETCH_BYTES - 1}` } });
  if (first.status === 200) {
    const whole = parse(new Uint8Array(await first.arrayBuffer()));
    return rows ? sliceRows(whole, rowBounds(rows, whole.shape, url)) : whole;
  }
  if (first.status !== 206) throw new Error(`${url}: HTTP ${first.status}`);
  const { total } = contentRange(first);
  let buf = new Uint8Array(await first.arrayBuffer());
  let info = JSON.parse(wasm._readHeader(buf, total));
  if (info.need !== undefined) {
    buf = concat(buf, await getRange(f, url, buf.length, info.need));
    info = JSON.parse(wasm._readHeader(buf, total));
  }
  const hl = info.dataOffset;
  const bounds = rows && rowBounds(rows, info.shape, url);
  if (!rows || info.fortranOrder || info.hasObject) {
    if (total > buf.length) buf = concat(buf, await getRange(f, url, buf.length, total));
    const whole = parse(buf);
    return rows ? sliceRows(whole, bounds) : whole;
  }
  const n = info.shape[0];
  const [lo, hi] = bounds;
  const rowBytes = n ? info.nbytes / n : 0;
  const start = info.dataOffset + lo * rowBytes;
  const end = info.dataOffset + hi * rowBytes;
  // No rows (end <= start, numpy's empty slice) take no request, wherever they start.
  const body = end <= buf.length || end === start ? buf.subarray(start, end) : await getRange(f, url, start, end);
  const header = wasm._rowsHeader(buf.subarray(0, hl), hi - lo);
  const r = parse(concat(header, body));
  r.rows = [lo, hi];
  return r;
}

/**
 * Fetches one member of a .npz archive by HTTP Range requests: the archive's last
 * NPZ_TAIL_BYTES (its end record and, when it fits there, its central directory), then the
 * member's local header and bytes in one request.
 * @param {string|URL} url
 * @param {string} key
 * @param {{fetch?: typeof fetch}} [options]
 */
export async function fetchNpz(url, key, options = {}) {
  const f = options.fetch ?? globalThis.fetch;
  const tail = await f(url, { headers: { Range: `bytes=-${NPZ_TAIL_BYTES}` } });
  if (tail.status === 200) {
    // A server without ranges sent the whole archive.
    const npz = openNpz(new Uint8Array(await tail.arrayBuffer()));
    try {
      return npz.get(key);
    } finally {
      npz.close();
    }
  }
  if (tail.status !== 206) throw new Error(`${url}: HTTP ${tail.status}`);
  const { start, total } = contentRange(tail);
  const ra = new wasm._RangeArchive(total);
  try {
    ra.add(start, new Uint8Array(await tail.arrayBuffer()));
    let held = 0;
    const fill = async () => {
      const [a, b] = ra.needed();
      held += b - a;
      checkDecodeSize(held, `${url}: the ranges of an archive`);
      ra.add(a, await getRange(f, url, a, b));
    };
    for (let i = 0; !ra.open(); i++) {
      if (i >= MAX_ROUNDS) throw new Error(`${url}: the archive asked for more than ${MAX_ROUNDS} ranges`);
      await fill();
    }
    checkDecodeSize(ra.size(key), `${url}: member '${key}'`);
    for (let i = 0; ; i++) {
      const m = ra.member(key);
      if (m !== undefined) return parse(m);
      if (i >= MAX_ROUNDS) throw new Error(`${url}: the member asked for more than ${MAX_ROUNDS} ranges`);
      await fill();
    }
  } finally {
    try {
      ra.free();
    } catch {
      // Only after a trap in wasm (which is the error the caller sees), never otherwise.
    }
  }
}

/** Integer dtypes' bounds (numpy's OverflowError past them). */
const INT_BOUNDS = {
  i1: [-128, 127], u1: [0, 255], i2: [-32768, 32767], u2: [0, 65535],
  i4: [-(2 ** 31), 2 ** 31 - 1], u4: [0, 2 ** 32 - 1],
  i8: [-(2n ** 63n), 2n ** 63n - 1n], u8: [0n, 2n ** 64n - 1n],
};

/** The typed array whose elements are a dtype's (`kind` + `width`), or undefined. */
function matchingArray(code) {
  return {
    b1: Uint8Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array, u2: Uint16Array, i4: Int32Array,
    u4: Uint32Array, i8: BigInt64Array, u8: BigUint64Array, f2: globalThis.Float16Array,
    f4: Float32Array, f8: Float64Array, c8: Float32Array, c16: Float64Array,
    M8: BigInt64Array, m8: BigInt64Array,
  }[code];
}

function intValue(v, i, descr, [lo, hi]) {
  const big = typeof lo === 'bigint';
  if (typeof v === 'boolean') v = v ? 1 : 0;
  if (typeof v === 'number' && !big) {
    if (!Number.isInteger(v)) throw new TypeError(`toNpy: element ${i} (${v}) of a ${descr} array is not a whole number`);
    if (v < lo || v > hi) throw new RangeError(`toNpy: element ${i}, ${v}, is out of bounds for ${descr} (${lo} to ${hi}; numpy: OverflowError)`);
    return v;
  }
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new TypeError(`toNpy: element ${i} (${v}) of a ${descr} array is not a whole number`);
    v = BigInt(v);
  }
  if (typeof v !== 'bigint') throw new TypeError(`toNpy: element ${i} (${String(v)}) of a ${descr} array is not a number`);
  if (v < BigInt(lo) || v > BigInt(hi)) throw new RangeError(`toNpy: element ${i}, ${v}, is out of bounds for ${descr} (${lo} to ${hi}; numpy: OverflowError)`);
  return big ? v : Number(v);
}

function floatValue(v, i, descr) {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return Number(v);
  throw new TypeError(`toNpy: element ${i} (${String(v)}) of a ${descr} array is not a number`);
}

function stringBytes(kind, width, descr, data) {
  if (kind === 'U') {
    const out = new Uint32Array(data.length * width);
    data.forEach((s, i) => {
      let j = 0;
      for (const ch of String(s)) {
        if (j >= width) throw new Error(`'${s}' is longer than ${descr} holds`);
        out[i * width + j++] = ch.codePointAt(0);
      }
    });
    return new Uint8Array(out.buffer);
  }
  const out = new Uint8Array(data.length * width);
  data.forEach((s, i) => {
    const t = String(s);
    if (t.length > width) throw new Error(`'${t}' is longer than ${descr} holds`);
    for (let j = 0; j < t.length; j++) {
      const c = t.charCodeAt(j);
      if (c > 255) throw new Error(`'${t}' has a character past latin-1, which |S does not hold`);
      out[i * width + j] = c;
    }
  });
  return out;
}

/** The elements' bytes for `descr` from `data` (see toNpy), little-endian. */
function elementBytes(descr, data) {
  const m = /^([<>|=]?)([biufcMmUS])(\d+)(\[\d*[a-zA-Z]*\])?$/.exec(descr);
  if (!m) {
    if (/^\[|^[<>|=]?[OV]/.test(descr)) {
      throw new Error(`toNpy writes numbers, bools, datetimes and strings; records, void (V) and object arrays (O) are not supported (dtype ${descr})`);
    }
    // Any other descr wasm parses (longdouble f16 / c32 and the like): raw bytes alone.
    if (data instanceof Uint8Array) return data;
    throw new TypeError(`toNpy: dtype ${descr} takes its elements' raw bytes as a Uint8Array`);
  }
  const [, , kind, width] = m;
  const code = `${kind}${width}`;
  const typed = ArrayBuffer.isView(data) && !(data instanceof DataView);
  if (!typed && !Array.isArray(data)) throw new TypeError('toNpy: data must be a typed array or an Array');
  const Match = matchingArray(code);
  // A typed array of the dtype's own element type: its bytes, as they are.
  if (Match && data instanceof Match && kind !== 'b') return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  // A Uint8Array: the elements' raw bytes (little-endian), for every dtype but bool.
  if (data instanceof Uint8Array && kind !== 'b') return data;
  if (kind === 'U' || kind === 'S') {
    if (typed) throw new TypeError(`toNpy: dtype ${descr} takes an Array of strings or a Uint8Array of the elements' bytes, not a ${data.constructor.name}`);
    return stringBytes(kind, Number(width), descr, data);
  }
  // Anything else is converted by value, as numpy's np.array(values, dtype).
  if (kind === 'b') return Uint8Array.from(data, (v) => (v ? 1 : 0));
  const bounds = INT_BOUNDS[code];
  if (bounds) {
    const out = new (matchingArray(code))(data.length);
    for (let i = 0; i < data.length; i++) out[i] = intValue(data[i], i, descr, bounds);
    return new Uint8Array(out.buffer);
  }
  if (kind === 'M' || kind === 'm') {
    const out = new BigInt64Array(data.length);
    for (let i = 0; i < data.length; i++) out[i] = data[i] === null ? NAT : intValue(data[i], i, descr, INT_BOUNDS.i8);
    return new Uint8Array(out.buffer);
  }
  if (kind === 'c') {
    if (!Match) throw new TypeError(`toNpy: dtype ${descr} takes its elements' raw bytes as a Uint8Array`);
    // Typed arrays: real and imaginary parts interleaved; Arrays: [re, im] pairs or reals.
    const flat = typed ? data : data.flatMap((v) => (Array.isArray(v) ? [v[0], v[1]] : [v, 0]));
    const out = Match.from(flat, (v, i) => floatValue(v, i, descr));
    return new Uint8Array(out.buffer);
  }
  if (code === 'f2') {
    const values = Float64Array.from(data, (v, i) => floatValue(v, i, descr));
    return new Uint8Array(wasm._f16Bits(values).buffer);
  }
  if (!Match) throw new TypeError(`toNpy: dtype ${descr} takes its elements' raw bytes as a Uint8Array`);
  return new Uint8Array(Match.from(data, (v, i) => floatValue(v, i, descr)).buffer);
}

/**
 * Writes a .npy file: byte for byte what np.save writes for the same array (numbers, bools,
 * datetimes, strings). `data`: a typed array of the dtype's own element type is used as it
 * is; a Uint8Array is the elements' raw bytes (little-endian; for `b1`, values); any other
 * typed array or an Array is converted by value, as np.array(values, dtype) (integers out of
 * the dtype's bounds or not whole: an Error). Records, void and object dtypes are refused.
 * @param {{dtype: string|{descr: string}, shape: number[], data: ArrayBufferView|Array, fortranOrder?: boolean}} array
 * @returns {Uint8Array}
 */
export function toNpy({ dtype, shape, data, fortranOrder = false } = {}) {
  const descr = typeof dtype === 'string' ? dtype : dtype?.descr;
  if (typeof descr !== 'string') throw new TypeError('toNpy: dtype must be a descr string (\'<f4\') or { descr }');
  if (!Array.isArray(shape)) throw new TypeError('toNpy: shape must be an Array of whole numbers (the array\'s dimensions; [] for a 0-d array)');
  return wasm._encode(descr, shape, fortranOrder, elementBytes(descr, data));
}

export { NAT };
