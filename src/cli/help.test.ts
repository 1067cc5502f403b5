import { describe, expect, it } from 'vitest';
import { COMMANDS, helpRequested, helpText, helpTopic } from './help.ts';

describe('helpRequested', () => {
  it('finds --help or -h anywhere before --', () => {
    expect(helpRequested(['serve', '--config', 'x', '-h'])).toBe(true);
    expect(helpRequested(['--help'])).toBe(true);
    expect(helpRequested(['serve', '--config', 'x'])).toBe(false);
    expect(helpRequested(['audit', 'verify', '--', '--help'])).toBe(false);
  });
});

describe('helpTopic', () => {
  it('is the command path named by the leading words, skipping options', () => {
    expect(helpTopic([])).toBe('');
    expect(helpTopic(['--help'])).toBe('');
    expect(helpTopic(['serve', 'extra', '--help'])).toBe('serve');
    expect(helpTopic(['policy', '--help'])).toBe('policy');
    expect(helpTopic(['policy', 'explain', '--as', 'alice'])).toBe('policy explain');
  });

  it('is undefined for words that are not commands', () => {
    expect(helpTopic(['frob'])).toBeUndefined();
    expect(helpTopic(['policy', 'frob'])).toBeUndefined();
  });

  it('has a help text for every command and subcommand', () => {
    for (const [command, subs] of Object.entries(COMMANDS)) {
      expect(helpText(command), command).toMatch(/^usage:/);
      for (const sub of subs) expect(helpText(`${command} ${sub}`), `${command} ${sub}`).toMatch(new RegExp(`^usage: gatehouse ${command} ${sub}`));
    }
  });
});
