/**
 * A small RFC 4180 CSV reader: comma-separated, fields optionally enclosed in double quotes, a doubled
 * quote inside a quoted field is one quote, commas and line breaks may appear inside quoted fields.
 * Lines may end in LF or CRLF; a UTF-8 byte-order mark is skipped. Blank lines are skipped.
 *
 * Files are read as a stream and split into lines; a record is parsed per line, and only when a quoted
 * field is still open at the end of a line is the next line joined to it (the results files have no
 * embedded line breaks, so the fast path is the only path in practice).
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** One record, or a line range that could not be parsed. `line` is the 1-based line it starts on. */
export type CsvRecord = { line: number; fields: string[] } | { line: number; error: string };

/**
 * Parses one record. Returns null when a quoted field is not closed by the end of `text`, so the caller
 * can join the next line and try again. Outside RFC 4180 the parser is lenient: a quote inside an
 * unquoted field is kept as written, and characters after a closing quote are appended to the field.
 */
export function parseCsvRecord(text: string): string[] | null {
  if (text.indexOf('"') < 0) return text.split(',');
  const fields: string[] = [];
  const n = text.length;
  let i = 0;
  for (;;) {
    if (text.charCodeAt(i) === 34 /* " */) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) return null; // still inside the quoted field
        value += text.slice(from, q);
        if (text.charCodeAt(q + 1) === 34) {
          value += '"';
          from = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      if (i < n && text.charCodeAt(i) !== 44 /* , */) {
        let j = text.indexOf(',', i);
        if (j < 0) j = n;
        value += text.slice(i, j);
        i = j;
      }
      fields.push(value);
    } else {
      let j = text.indexOf(',', i);
      if (j < 0) j = n;
      fields.push(text.slice(i, j));
      i = j;
    }
    if (i >= n) return fields;
    i++; // skip the comma
    if (i === n) {
      fields.push('');
      return fields;
    }
  }
}

/** Assembles physical lines into records, joining lines while a quoted field is open. */
export class CsvRecordAssembler {
  private pending: { line: number; text: string } | null = null;

  /** Feeds one physical line (without its line break); returns a record once one is complete. */
  push(text: string, lineNo: number): CsvRecord | undefined {
    if (this.pending) {
      this.pending.text += '\n' + text;
      const fields = parseCsvRecord(this.pending.text);
      if (fields === null) return undefined;
      const line = this.pending.line;
      this.pending = null;
      return { line, fields };
    }
    if (text.length === 0) return undefined;
    const fields = parseCsvRecord(text);
    if (fields !== null) return { line: lineNo, fields };
    this.pending = { line: lineNo, text };
    return undefined;
  }

  /** Call at the end of input: an unterminated quoted field becomes an error record. */
  end(): CsvRecord | undefined {
    if (!this.pending) return undefined;
    const line = this.pending.line;
    this.pending = null;
    return { line, error: 'unterminated quoted field at end of file' };
  }
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k]!;
    if (l.endsWith('\r')) lines[k] = l.slice(0, -1);
  }
  return lines;
}

/** Parses a whole CSV text in memory (tests, small inputs). */
export function parseCsvText(text: string): CsvRecord[] {
  const out: CsvRecord[] = [];
  const asm = new CsvRecordAssembler();
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = splitLines(body);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((l, k) => {
    const r = asm.push(l, k + 1);
    if (r) out.push(r);
  });
  const last = asm.end();
  if (last) out.push(last);
  return out;
}

/**
 * Streams a CSV file, calling `visit` for every record in file order; `onBytes` is told how many bytes
 * were read after each chunk.
 */
export async function forEachCsvRecord(
  path: string,
  visit: (record: CsvRecord) => void,
  onBytes?: (bytes: number) => void,
): Promise<void> {
  const asm = new CsvRecordAssembler();
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let lineNo = 0;
  let first = true;
  const feed = (text: string, final: boolean) => {
    let start = 0;
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) start = 1;
      first = false;
    }
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      lineNo++;
      const r = asm.push(text.slice(start, end), lineNo);
      if (r) visit(r);
      start = nl + 1;
    }
    rest = text.slice(start);
    if (final && rest.length > 0) {
      lineNo++;
      const tail = rest.endsWith('\r') ? rest.slice(0, -1) : rest;
      const r = asm.push(tail, lineNo);
      if (r) visit(r);
      rest = '';
    }
  };
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    feed(rest + decoder.write(chunk), false);
    onBytes?.(chunk.length);
  }
  feed(rest + decoder.end(), true);
  const last = asm.end();
  if (last) visit(last);
}
