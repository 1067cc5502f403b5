// Maps a JSON pointer into the parsed YAML back to a line and column, so that every
// config issue can point into the file. Positions come from the yaml package's node
// ranges; aliases are followed to the node they stand for.

import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';
import { fromPointer } from './config-error.ts';

export interface SourcePosition {
  line: number;
  column: number;
}

export interface PositionLookup {
  /**
   * Position of the value at `pointer`, or of its key when `atKey` (used for unknown and
   * badly named keys). A path the file lacks falls back to its deepest existing ancestor.
   */
  (pointer: string, atKey?: boolean): SourcePosition | undefined;
}

export function createPositionLookup(doc: Document, lines: LineCounter): PositionLookup {
  return (pointer, atKey = false) => {
    const segments = fromPointer(pointer);
    let node: unknown = doc.contents;
    let found: unknown = node;
    for (const [index, segment] of segments.entries()) {
      if (isAlias(node)) node = node.resolve(doc);
      let next: unknown;
      if (isMap(node)) {
        const pair = node.items.find((p) => keyText(p.key) === segment);
        if (pair !== undefined && atKey && index === segments.length - 1) {
          found = pair.key;
          break;
        }
        next = pair?.value ?? pair?.key;
      } else if (isSeq(node)) {
        next = node.items[Number(segment)];
      }
      if (next === undefined || next === null) break;
      node = found = next;
    }
    return positionOf(found, lines);
  };
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

function positionOf(node: unknown, lines: LineCounter): SourcePosition | undefined {
  const range = (node as { range?: readonly number[] | null } | null)?.range;
  const offset = range?.[0];
  if (offset === undefined) return undefined;
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}
