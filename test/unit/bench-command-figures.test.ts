import { existsSync, readFileSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandFigures } from '../../bench/command-figures.js';

const figures = { races: 3, records: 9, rows: 27, seconds: 1.5 };
const log = (msg: string) => JSON.stringify({ level: 40, time: 1, service: 'racing', msg });

describe("commandFigures (the benches read a command's figures from its stdout)", () => {
  it('finds the figures line when log lines follow it', () => {
    const stdout = [log('starting'), JSON.stringify(figures), log('consumer left the group while stopping'), ''].join(
      '\n',
    );
    expect(commandFigures('rebuild', stdout)).toEqual(figures);
  });

  it('skips a log line that happens to carry rows and seconds', () => {
    const stdout = [JSON.stringify(figures), JSON.stringify({ level: 30, msg: 'done', rows: 1, seconds: 2 })].join(
      '\n',
    );
    expect(commandFigures('process', stdout)).toEqual(figures);
  });

  it('without a figures line, throws naming a file that keeps the whole output', () => {
    const stdout = [log('one'), 'not json', log('two')].join('\n');
    let message = '';
    try {
      commandFigures('rebuild --yes', stdout, 'Maximum resident set size (kbytes): 1');
    } catch (err) {
      message = (err as Error).message;
    }
    const file = /output is in (\S+)$/.exec(message)?.[1];
    expect(message).toMatch(/racing rebuild --yes printed no figures line/);
    expect(file && existsSync(file)).toBe(true);
    const kept = readFileSync(file!, 'utf8');
    expect(kept).toContain('not json');
    expect(kept).toContain('Maximum resident set size');
    rmSync(file!);
  });
});
