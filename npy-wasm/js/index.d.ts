// Types of the npy-wasm package (js/index.js). See README.md for what each value holds.

/** A numpy dtype: `descr` as the header writes it, `name` as numpy's `dtype.name`. */
export interface DType {
  descr: string;
  name: string;
  /** datetime64 / timedelta64: the tick unit as numpy writes it in brackets (`"D"`, `"10ms"`, `""` generic). */
  unit?: string;
  /** Records: each field's dtype, in field order. */
  fields?: Fields;
}

/** A record's fields by name. */
export interface Fields {
  [name: string]: FieldDType;
}

/**
 * One field of a record: a leaf field has `descr` and `name` (and `unit`, and `shape` for a
 * subarray field); a nested record has `fields` instead.
 */
export interface FieldDType {
  descr?: string;
  name?: string;
  unit?: string;
  /** A subarray field: its shape (each element's values). */
  shape?: number[];
  /** A nested record: its fields. */
  fields?: Fields;
}

/** `Float16Array` where the TypeScript lib declares it (ES2025 / esnext), else nothing. */
export type Float16ArrayIfAny = typeof globalThis extends { Float16Array: abstract new (...args: never[]) => infer A } ? A : never;

/** A subarray field of a record: the values of every element, flat, and the full shape (the array's, then the field's). */
export interface SubArrayColumn {
  data: Column;
  shape: number[];
}

/**
 * One array's values, flat, in the file's order (C, or Fortran when `fortranOrder`):
 * numbers as their typed array (int64/uint64 and datetime/timedelta ticks as BigInt64Array /
 * BigUint64Array, NaT = -(2n ** 63n)); bool as Uint8Array (0 false, else true); float16 as
 * Float16Array where the runtime has it, else a Float32Array of the same values; complex as
 * the real and imaginary parts interleaved (Float32Array / Float64Array of 2 values each);
 * `U` strings as JS strings, `S` bytes as latin-1 strings (one character a byte, trailing NULs
 * removed as numpy does); `V` as one Uint8Array each; longdouble, ml_dtypes, subarrays of
 * records and object arrays as an Array of JS values. A `U` / `S` column's Array is made when
 * its property is first read (see README.md, "String columns"); then it is a plain data
 * property.
 */
export type Column =
  | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array
  | BigInt64Array | BigUint64Array | Float16ArrayIfAny | Float32Array | Float64Array
  | string[] | Uint8Array[] | unknown[];

/**
 * Records: one column per field, in field order (nested records nest). Field names are the
 * file's, so this is an index signature; narrow a field with `Array.isArray`,
 * `ArrayBuffer.isView` or `'shape' in`.
 */
export interface Columns {
  [field: string]: Column | SubArrayColumn | Columns;
}

export interface NpyArray {
  dtype: DType;
  shape: number[];
  fortranOrder: boolean;
  data: Column | Columns;
  /** fetchNpy with rows: the rows taken, [lo, hi) with 0 <= lo <= hi <= the row count. */
  rows?: [number, number];
  /** The same array with its data in C order (itself when it is already). */
  toCOrder(): NpyArray;
  /** numpy's str() of the array. */
  toString(): string;
}

export interface NpzFile {
  /** The keys, as numpy's NpzFile.files. */
  keys: string[];
  /** Reads and parses one member (inflated and CRC-checked when asked, not before). */
  get(key: string): NpyArray;
  /** One member's bytes (a .npy file). */
  bytes(key: string): Uint8Array;
  /** Frees the archive's copy in the module's memory; get/bytes then throw, close() again does nothing. */
  close(): void;
}

export interface FetchOptions {
  /**
   * Rows [start, end) along the first dimension, as numpy's a[start:end] (negative bounds count
   * from the end, bounds are clamped, end <= start gives none); only their bytes are fetched
   * (C order). Not two whole numbers: a TypeError before any request; a 0-d array: an Error.
   */
  rows?: [number, number];
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: typeof fetch;
}

/**
 * What toNpy writes: a parse result (`toNpy(parse(bytes))`) or the same fields. `data`: a
 * typed array of the dtype's own element type as it is, a Uint8Array as the elements' raw
 * bytes (values for `b1`), any other typed array or Array converted by value (see README.md).
 * Records, void and object dtypes (`Columns`) are refused at run time with an Error:
 * toNpy writes numbers, bools, datetimes and strings.
 */
export interface ToNpyInput {
  dtype: string | { descr: string };
  shape: number[];
  data: Column | Columns | ArrayLike<unknown>;
  fortranOrder?: boolean;
}

export const HAS_FLOAT16: boolean;
export const FIRST_FETCH_BYTES: number;
/** Bytes fetchNpz fetches first from an archive's end (64 KiB + 98). */
export const NPZ_TAIL_BYTES: number;
export const NAT: bigint;
/** The largest input decoded in WebAssembly, and the largest .npz member inflated (1 GiB); zero-copy parses have no such limit. */
export const MAX_DECODE_BYTES: number;

/** Parses a .npy file; numbers are views of `input`'s buffer (no copy) when aligned and little-endian. */
export function parse(input: ArrayBuffer | Uint8Array): NpyArray;
/** Opens a .npz archive in memory. */
export function openNpz(input: ArrayBuffer | Uint8Array): NpzFile;
/** Fetches a .npy file by Range requests: the header, then the rows asked for. */
export function fetchNpy(url: string | URL, options?: FetchOptions): Promise<NpyArray>;
/** Fetches one member of a .npz archive by Range requests: the archive's last NPZ_TAIL_BYTES, then the member. */
export function fetchNpz(url: string | URL, key: string, options?: { fetch?: typeof fetch }): Promise<NpyArray>;
/** Writes a .npy file, byte for byte what np.save writes for the same array (numbers, bools, datetimes, strings). */
export function toNpy(array: ToNpyInput): Uint8Array;
