// Names of the files of one audit chain in its directory. The sink appends to `file`
// (default gatehouse-audit.jsonl); rotation renames it to `<stem>.<first seq>.<ext>`, e.g.
// gatehouse-audit.000000000101.jsonl, so names sort in chain order, retention deletes the
// lowest numbers, and a restart can find the newest rotated file without reading any.
// (Timestamps would sort wrongly after a clock step; seq cannot.) If that name is taken
// (only after manual tampering), `-N` is appended rather than overwriting audit data.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

export const DEFAULT_AUDIT_FILE = 'gatehouse-audit.jsonl';

const SEQ_DIGITS = 12;

export interface RotatedFile {
  name: string;
  firstSeq: number;
  attempt: number;
}

export function rotatedFileName(file: string, firstSeq: number, attempt = 0): string {
  const { name, ext } = path.parse(file);
  const suffix = attempt === 0 ? '' : `-${attempt}`;
  return `${name}.${String(firstSeq).padStart(SEQ_DIGITS, '0')}${suffix}${ext}`;
}

export function parseRotatedName(file: string, candidate: string): RotatedFile | undefined {
  const { name, ext } = path.parse(file);
  if (!candidate.startsWith(`${name}.`) || !candidate.endsWith(ext)) return undefined;
  const middle = candidate.slice(name.length + 1, candidate.length - ext.length);
  const match = /^(\d+)(?:-(\d+))?$/.exec(middle);
  if (match === null) return undefined;
  return { name: candidate, firstSeq: Number(match[1]), attempt: Number(match[2] ?? 0) };
}

/** Rotated files of the chain in `dir`, oldest first. */
export async function listRotatedFiles(dir: string, file: string): Promise<RotatedFile[]> {
  return rotatedAmong(await readdir(dir), file);
}

/** Every file of the chain in `dir` in chain order: rotated files, then the current one. */
export async function listAuditFiles(dir: string, file: string): Promise<string[]> {
  const names = await readdir(dir);
  const rotated = rotatedAmong(names, file).map((r) => path.join(dir, r.name));
  const current = path.join(dir, file);
  // Only a regular file: a reader of a device or FIFO at that path (a test's /dev/full, a
  // misconfiguration) would never reach an end.
  const isFile = names.includes(file) && (await stat(current).catch(() => undefined))?.isFile() === true;
  return isFile ? [...rotated, current] : rotated;
}

function rotatedAmong(names: readonly string[], file: string): RotatedFile[] {
  return names
    .map((n) => parseRotatedName(file, n))
    .filter((r): r is RotatedFile => r !== undefined)
    .sort((a, b) => a.firstSeq - b.firstSeq || a.attempt - b.attempt);
}
