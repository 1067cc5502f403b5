// Whether a range of bytes holds a control character (below 0x20), sixteen bytes at a time with
// WebAssembly's 128-bit SIMD: the check json-string-run.ts makes over every plain run of a
// relayed result's strings (RFC 8259 §7), which is nearly every byte of a big result. The JS
// word loop it replaces ran at about 2 GB/s in the gateway; this runs at the speed of the copy
// into the module's memory (a native memcpy), several times that. The module is assembled here
// from its instructions (WebAssembly core spec 2.0, binary format, §5; SIMD opcodes §5.4.8), so
// there is no build step and no binary file; where WebAssembly or its SIMD is not available
// (`--jitless`, `--no-expose-wasm`) `controlScan` is undefined and the word loop runs instead.
//
// The function, in the text format:
//   (func (export "c") (param $n i32) (result i32) (local $p i32) (local $acc v128)
//     (local.set $acc (i8x16.splat (i32.const 0xff)))
//     (block (loop
//       (br_if 1 (i32.ge_u (local.get $p) (local.get $n)))
//       (local.set $acc (i8x16.min_u (local.get $acc) (v128.load (local.get $p))))
//       (local.set $p (i32.add (local.get $p) (i32.const 16)))
//       (br 0)))
//     (v128.any_true (i8x16.lt_u (local.get $acc) (i8x16.splat (i32.const 0x20)))))
// It reads bytes 0 to $n of its one 64 KiB page, $n a multiple of 16: the caller copies a window
// of the range in and pads it to sixteen with spaces.

const WINDOW = 64 * 1024;

// Section ids, types and opcodes (core spec §5.3–§5.5, §5.4.8 for the 0xfd-prefixed SIMD ones).
const SEC_TYPE = 1;
const SEC_FUNC = 3;
const SEC_MEMORY = 5;
const SEC_EXPORT = 7;
const SEC_CODE = 10;
const FUNC_TYPE = 0x60;
const I32 = 0x7f;
const V128 = 0x7b;
const EXPORT_FUNC = 0x00;
const EXPORT_MEMORY = 0x02;
const BLOCK = 0x02;
const LOOP = 0x03;
const EMPTY = 0x40;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const I32_CONST = 0x41;
const I32_GE_U = 0x4f;
const I32_ADD = 0x6a;
const SIMD = 0xfd;
const V128_LOAD = 0x00;
const I8X16_SPLAT = 0x0f;
const I8X16_LT_U = 0x26;
const V128_ANY_TRUE = 0x53;
const I8X16_MIN_U = 0x77;

// Locals: 0 = $n (the parameter), 1 = $p, 2 = $acc.
const BODY = [
  2, 1, I32, 1, V128, // two local declarations: one i32, one v128
  I32_CONST, 0x7f, SIMD, I8X16_SPLAT, LOCAL_SET, 2, // $acc = every lane 0xff (i32.const -1, sleb128)
  BLOCK, EMPTY, LOOP, EMPTY,
  LOCAL_GET, 1, LOCAL_GET, 0, I32_GE_U, BR_IF, 1,
  LOCAL_GET, 2, LOCAL_GET, 1, SIMD, V128_LOAD, 0x04, 0x00, SIMD, I8X16_MIN_U, LOCAL_SET, 2, // align 2^4, offset 0
  LOCAL_GET, 1, I32_CONST, 16, I32_ADD, LOCAL_SET, 1,
  BR, 0,
  END, END,
  LOCAL_GET, 2, I32_CONST, 0x20, SIMD, I8X16_SPLAT, SIMD, I8X16_LT_U, SIMD, V128_ANY_TRUE,
  END,
];

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

const name = (s: string): number[] => [s.length, ...Buffer.from(s, 'latin1')];

const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  ...section(SEC_TYPE, [1, FUNC_TYPE, 1, I32, 1, I32]),
  ...section(SEC_FUNC, [1, 0]),
  ...section(SEC_MEMORY, [1, 0x01, 1, 1]), // one memory, exactly one page
  ...section(SEC_EXPORT, [2, ...name('c'), EXPORT_FUNC, 0, ...name('m'), EXPORT_MEMORY, 0]),
  ...section(SEC_CODE, [1, ...uleb(BODY.length), ...BODY]),
]);

function assemble(): ((chunk: Buffer, from: number, to: number) => boolean) | undefined {
  try {
    if (typeof WebAssembly !== 'object' || !WebAssembly.validate(MODULE)) return undefined;
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(MODULE));
    const scan = exports.c as (n: number) => number;
    const page = Buffer.from((exports.m as WebAssembly.Memory).buffer, 0, WINDOW);
    return (chunk, from, to) => {
      for (let at = from; at < to; at += WINDOW) {
        const n = Math.min(WINDOW, to - at);
        chunk.copy(page, 0, at, at + n);
        const padded = (n + 15) & ~15;
        if (padded > n) page.fill(0x20, n, padded);
        if (scan(padded) !== 0) return true;
      }
      return false;
    };
  } catch {
    return undefined;
  }
}

/** Some byte of `chunk` from `from` to `to` (exclusive) is below 0x20; undefined where
 * WebAssembly SIMD is not available. */
export const controlScan = assemble();
