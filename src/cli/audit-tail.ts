// `gatehouse audit tail [-n N] [--follow]`: the last N records of a chain (reading files
// backwards, newest first, only as far as needed), then, with --follow, records as they are
// written. Following survives rotation: when the path names a new file, the old one is read
// to its end (the sink fsyncs before it rotates) and the new one from its start.
import { open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { parseArgs } from 'node:util';
import { listAuditFiles, listRotatedFiles } from '../audit/audit-files.ts';
import { readLines, readTail } from '../audit/line-reader.ts';
import { formatAuditJson, formatAuditLine } from './audit-format.ts';
import { auditUsageError, CHAIN_OPTIONS, chainLocation, parseStored } from './audit-options.ts';

const OPTIONS = { ...CHAIN_OPTIONS, lines: { type: 'string', short: 'n' }, follow: { type: 'boolean', short: 'f' } } as const;
const POLL_MS = 200;

export async function auditTailCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS }));
  } catch (e) {
    return auditUsageError('tail', (e as Error).message);
  }
  const count = Number(values.lines ?? '10');
  if (!Number.isInteger(count) || count < 0) return auditUsageError('tail', `-n must be a whole number, got "${values.lines}"`);
  const { dir, file } = chainLocation(values);
  let end = 0;
  let lastSeq = 0;
  const show = (text: string): void => {
    const record = parseStored(text);
    if (record === undefined) return;
    // Following may see a line twice around a rotation; seq tells which were printed.
    const seq = typeof record['seq'] === 'number' ? record['seq'] : undefined;
    if (seq !== undefined && seq <= lastSeq) return;
    lastSeq = seq ?? lastSeq;
    process.stdout.write(`${values.json === true ? formatAuditJson(text) : formatAuditLine(record)}\n`);
  };
  try {
    const files = await listAuditFiles(dir, file);
    const newestFirst: string[][] = [];
    let have = 0;
    for (const f of [...files].reverse()) {
      if (have >= count) break;
      const tail = await readTail(f, count - have);
      newestFirst.push(tail?.lines ?? []);
      have += tail?.lines.length ?? 0;
    }
    const current = await readTail(path.join(dir, file), 1);
    end = current?.completeEnd ?? 0;
    // With -n 0 nothing is printed, but following starts after the last line on disk.
    const lastOnDisk = parseStored(current?.lines.at(-1) ?? '')?.['seq'];
    for (const lines of newestFirst.reverse()) lines.forEach(show);
    if (typeof lastOnDisk === 'number') lastSeq = Math.max(lastSeq, lastOnDisk);
  } catch (e) {
    process.stderr.write(`gatehouse audit tail: ${(e as Error).message}\n`);
    return 2;
  }
  if (values.follow !== true) return 0;
  await follow(dir, file, end, show, () => lastSeq);
  return 0;
}

/**
 * Prints complete lines appended to the chain from `start` in the current file on, and
 * never returns. When the path names a new file, the old one has been read to its end (the
 * sink fsyncs before it rotates); files rotated since then are read whole before the new
 * current one, since several rotations can happen between two polls.
 */
async function follow(dir: string, file: string, start: number, show: (text: string) => void, printedSeq: () => number): Promise<never> {
  const current = path.join(dir, file);
  let handle: FileHandle | undefined;
  let ino = -1;
  let position = start;
  let partial = '';
  // A chunk may end inside a multi-byte character.
  let decoder = new StringDecoder('utf8');
  for (;;) {
    if (handle === undefined) {
      try {
        handle = await open(current, 'r');
        ino = (await handle.stat()).ino;
      } catch {
        await sleep(POLL_MS);
        continue;
      }
    }
    const { bytesRead, buffer } = await handle.read({ buffer: Buffer.alloc(64 * 1024), position });
    if (bytesRead > 0) {
      position += bytesRead;
      const parts = (partial + decoder.write(buffer.subarray(0, bytesRead))).split('\n');
      partial = parts.pop() ?? '';
      parts.forEach(show);
      continue;
    }
    const now = await stat(current).catch(() => undefined);
    if (now !== undefined && now.ino !== ino) {
      await handle.close();
      handle = undefined;
      // Only files that can hold lines after the last one printed: a file ends where the
      // next one's first seq begins.
      const rotated = await listRotatedFiles(dir, file);
      for (const [i, r] of rotated.entries()) {
        if ((rotated[i + 1]?.firstSeq ?? Infinity) <= printedSeq() + 1) continue;
        for await (const line of readLines(path.join(dir, r.name))) if (line.terminated) show(line.text);
      }
      position = 0;
      partial = '';
      decoder = new StringDecoder('utf8');
      continue;
    }
    await sleep(POLL_MS);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
