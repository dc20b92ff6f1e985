// A static HTTP server on 127.0.0.1 with Range support (bytes=a-b, a-, -n), serving the package
// directory, the workspace's fixtures under /fixtures/, and /big.npy: a virtual 1 GiB .npy file
// (float32, shape (ROWS, 256), element i = i % 4093), made on the fly for the ranges asked,
// never written; and what a test put() under /put/. It counts requests and body bytes per path.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const PKG = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export const BIG_COLS = 256;
const HEADER_BYTES = 128;
/** 2^20 rows of 1 KiB: 1 GiB of data after the 128-byte header. */
export const BIG_ROWS = 2 ** 20;
export const BIG_SIZE = HEADER_BYTES + BIG_ROWS * BIG_COLS * 4;

function bigHeader() {
  let text = `{'descr': '<f4', 'fortran_order': False, 'shape': (${BIG_ROWS}, ${BIG_COLS}), }`;
  text += ' '.repeat(HEADER_BYTES - 10 - text.length - 1) + '\n';
  const h = Buffer.alloc(HEADER_BYTES);
  h.set([0x93, ...Buffer.from('NUMPY'), 1, 0, text.length & 0xff, text.length >> 8]);
  h.write(text, 10, 'latin1');
  return h;
}
const BIG_HEADER = bigHeader();

/** The value numpy would hold at flat index i of /big.npy. */
export function bigValue(i) {
  return i % 4093;
}

function bigBytes(start, end) {
  const out = Buffer.alloc(end - start);
  const hEnd = Math.min(end, HEADER_BYTES);
  if (start < hEnd) BIG_HEADER.copy(out, 0, start, hEnd);
  const first = Math.max(start, HEADER_BYTES);
  if (first < end) {
    const e0 = Math.floor((first - HEADER_BYTES) / 4);
    const e1 = Math.ceil((end - HEADER_BYTES) / 4);
    const f = new Float32Array(e1 - e0);
    for (let e = e0; e < e1; e++) f[e - e0] = bigValue(e);
    const b = Buffer.from(f.buffer);
    const skip = first - HEADER_BYTES - e0 * 4;
    b.copy(out, first - start, skip, skip + (end - first));
  }
  return out;
}

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm' };

export async function startServer() {
  const stats = new Map();
  const put = new Map();
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const s = stats.get(path) ?? { requests: 0, bytes: 0 };
    stats.set(path, s);
    s.requests++;
    let size;
    let read;
    try {
      if (put.has(path)) {
        const data = put.get(path);
        size = data.length;
        read = async (a, b) => data.subarray(a, b);
      } else if (path === '/big.npy') {
        size = BIG_SIZE;
        read = async (a, b) => bigBytes(a, b);
      } else {
        const file = path.startsWith('/fixtures/')
          ? FIXTURES + normalize(path.slice('/fixtures/'.length)).replace(/^(\.\.[/\\])+/, '')
          : PKG + normalize(path).replace(/^(\.\.[/\\])+/, '');
        const data = await readFile(file);
        size = data.length;
        read = async (a, b) => data.subarray(a, b);
      }
    } catch {
      res.writeHead(404).end();
      return;
    }
    const type = TYPES[extname(path)] ?? 'application/octet-stream';
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    let start = 0;
    let end = size;
    let status = 200;
    if (range) {
      if (range[1] === '') {
        start = Math.max(0, size - Number(range[2]));
      } else {
        start = Number(range[1]);
        end = range[2] === '' ? size : Math.min(size, Number(range[2]) + 1);
      }
      if (start >= end) {
        res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
        return;
      }
      status = 206;
    }
    if (size > 256 * 2 ** 20 && !range) {
      res.writeHead(413).end();
      return;
    }
    const body = await read(start, end);
    s.bytes += body.length;
    const headers = { 'Content-Type': type, 'Content-Length': body.length, 'Accept-Ranges': 'bytes' };
    if (status === 206) headers['Content-Range'] = `bytes ${start}-${end - 1}/${size}`;
    res.writeHead(status, headers).end(body);
  });
  // Idle connections stay open until close(): a test that blocks the event loop (numpy run
  // synchronously) must not find its pooled connection closed under it ("fetch failed").
  server.keepAliveTimeout = 0;
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    reset() { stats.clear(); },
    /** Serves `bytes` at /put/`name`; returns its URL. */
    put(name, bytes) {
      put.set(`/put/${name}`, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return `http://127.0.0.1:${port}/put/${name}`;
    },
    close: () => new Promise((ok) => {
      server.close(ok);
      server.closeAllConnections();
    }),
  };
}
