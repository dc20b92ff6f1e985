// Type-checked by `npm test` (tsc -p test/types): what a TypeScript user writes against
// js/index.d.ts. Never run.
import { parse, openNpz, fetchNpy, fetchNpz, toNpy, MAX_DECODE_BYTES, NPZ_TAIL_BYTES } from '../../js/index.js';
import type { Column, Columns, DType, FieldDType, NpyArray } from '../../js/index.js';

declare const bytes: Uint8Array;

const a: NpyArray = parse(bytes);
// A parse result goes back through toNpy.
const out: Uint8Array = toNpy(parse(bytes));
toNpy(a.toCOrder());
toNpy({ dtype: '<f4', shape: [2], data: new Int32Array([1, 2]) });
toNpy({ dtype: { descr: '<i8' }, shape: [2], data: [1n, 2n], fortranOrder: false });

// dtype.fields: a leaf's descr is a string (or undefined), a nested record's fields nest.
const d: DType = a.dtype;
if (d.fields) {
  for (const [name, f] of Object.entries(d.fields)) {
    const leaf: FieldDType = f;
    const descr: string | undefined = leaf.descr;
    const sub = leaf.fields?.['x']?.descr;
    console.log(name, descr?.length, sub, leaf.shape?.[0]);
  }
}

// Columns narrow by the usual checks.
const data: Column | Columns = a.data;
if (ArrayBuffer.isView(data)) console.log(data.byteLength);
else if (Array.isArray(data)) console.log(data.length);
else for (const v of Object.values(data)) if ('shape' in v && !ArrayBuffer.isView(v)) console.log(v.shape);

const z = openNpz(bytes.buffer as ArrayBuffer);
const k: string[] = z.keys;
z.get(k[0]).toString();
z.close();

async function remote(): Promise<void> {
  const r = await fetchNpy('http://127.0.0.1/x.npy', { rows: [-10, -1] });
  const rows: [number, number] | undefined = r.rows;
  await fetchNpz(new URL('http://127.0.0.1/x.npz'), 'a', { fetch });
  console.log(rows, MAX_DECODE_BYTES + NPZ_TAIL_BYTES, out.length);
}
void remote;
