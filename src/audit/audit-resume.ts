// Where the chain stands on disk when the sink starts: the head is the last complete line of
// the current file, or of the newest rotated file if the current one is empty or missing, or
// genesis. An incomplete last line (crash rule, chain-verifier.ts) is cut off first: it was
// never acknowledged. Also where the retained history starts (the oldest rotated file's
// first record), for the retention metric.
import { mkdir, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../telemetry/logger.ts';
import { listRotatedFiles } from './audit-files.ts';
import { checkLine, GENESIS_HEAD, parseChainLine, type ChainHead } from './hash-chain.ts';
import { readFirstLine, readTail } from './line-reader.ts';

export interface ResumePoint {
  head: ChainHead;
  /** seq of the current file's first line (the next seq when it is empty). */
  firstSeq: number;
  retainedSince?: string;
}

/** Throws (at boot) if the chain cannot be resumed. */
export async function resumeChain(dir: string, file: string, logger: Logger): Promise<ResumePoint> {
  await mkdir(dir, { recursive: true });
  const current = path.join(dir, file);
  const tail = await readTail(current, 1);
  if (tail !== undefined && tail.completeEnd < tail.size) {
    await truncate(current, tail.completeEnd);
    logger.warn('audit: cut off an incomplete last line left by a crash (never acknowledged)', {
      file: current,
      bytes: tail.size - tail.completeEnd,
    });
  }
  const rotated = await listRotatedFiles(dir, file);
  // Not the current file unless it is a regular one (readTail said so): a FIFO would block.
  const oldest = rotated[0] !== undefined ? path.join(dir, rotated[0].name) : tail !== undefined ? current : undefined;
  const retainedSince = oldest === undefined ? undefined : await firstTime(oldest);
  const since = retainedSince === undefined ? {} : { retainedSince };
  const last = tail?.lines.at(-1);
  if (last !== undefined) {
    const head = resumeFrom(last, current, logger);
    const first = await readFirstLine(current);
    const firstParsed = first === undefined ? undefined : parseChainLine(first);
    return { head, firstSeq: firstParsed?.ok ? firstParsed.value.seq : head.seq, ...since };
  }
  const newest = rotated.at(-1);
  const rotatedPath = newest === undefined ? undefined : path.join(dir, newest.name);
  const rotatedLast = rotatedPath === undefined ? undefined : (await readTail(rotatedPath, 1))?.lines.at(-1);
  const head = rotatedLast === undefined || rotatedPath === undefined ? GENESIS_HEAD : resumeFrom(rotatedLast, rotatedPath, logger);
  return { head, firstSeq: head.seq + 1, ...since };
}

function resumeFrom(line: string, file: string, logger: Logger): ChainHead {
  const parsed = parseChainLine(line);
  if (!parsed.ok) {
    throw new Error(`audit: cannot continue the chain: the last line of ${file} is not an audit line (${parsed.error}); check the file with \`gatehouse audit verify\``);
  }
  const own = checkLine(line, undefined);
  if (!own.ok) logger.error('audit: the last line does not verify; the chain continues from its stated hash', { file, problem: own.error.message });
  return { seq: parsed.value.seq, hash: parsed.value.hash };
}

async function firstTime(file: string): Promise<string | undefined> {
  const line = await readFirstLine(file).catch(() => undefined);
  const parsed = line === undefined ? undefined : parseChainLine(line);
  const time = parsed?.ok ? parsed.value.record.time : undefined;
  return typeof time === 'string' ? time : undefined;
}
