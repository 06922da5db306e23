import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { DomainError } from '../../common/errors/index.js';
import { ConfigError } from '../../config/config.schema.js';
import { DenylistFormatError, parseDenylist, PayoutDenylistFile } from './payout-denylist.js';

const hexAddress = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`);
/** Any letter case of the same hex digits. */
const anyCase = (address: string) => fc.array(fc.boolean(), { minLength: address.length, maxLength: address.length }).map((upper) => `0x${[...address.slice(2)].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join('')}`);
const comment = fc.string({ maxLength: 20 }).map((text) => `# ${text.replace(/[\r\n]/g, ' ')}`);

describe('parseDenylist', () => {
  it('reads every address of any letter case, whatever the blank lines, comments and line endings around them', () => {
    fc.assert(
      fc.property(
        fc.array(hexAddress.chain((a) => fc.tuple(fc.constant(a), anyCase(a), fc.option(comment), fc.constantFrom('', ' ', '\t'))), { maxLength: 30 }),
        fc.array(fc.oneof(comment, fc.constantFrom('', '   ')), { maxLength: 5 }),
        fc.constantFrom('\n', '\r\n'),
        (entries, noise, eol) => {
          const lines = [...noise, ...entries.map(([, written, trailing, pad]) => `${pad}${written}${pad}${trailing ? ` ${trailing}` : ''}`)];
          const parsed = parseDenylist(lines.join(eol));
          expect([...parsed].sort()).toEqual([...new Set(entries.map(([a]) => a))].sort());
        },
      ),
    );
  });

  it('refuses the whole file on any line that is not an address, naming the line', () => {
    fc.assert(
      fc.property(
        fc.array(hexAddress, { maxLength: 5 }),
        fc.string({ minLength: 1, maxLength: 50 }).filter((text) => !/^0x[0-9a-fA-F]{40}$/.test(text.trim()) && text.replace(/#.*$/, '').trim() !== '' && !/[\r\n]/.test(text)),
        (good, bad) => {
          const text = [...good, bad].join('\n');
          expect(() => parseDenylist(text)).toThrow(new RegExp(`line ${good.length + 1}:`));
          expect(() => parseDenylist(text)).toThrow(DenylistFormatError);
        },
      ),
    );
  });
});

describe('PayoutDenylistFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'denylist-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is empty without a file', () => {
    expect(new PayoutDenylistFile(undefined).current().has('0x' + '1'.repeat(40))).toBe(false);
  });

  it('stops the boot on a bad file, re-reads a changed one, and fails closed when it becomes unreadable', () => {
    const path = join(dir, 'list.txt');
    writeFileSync(path, 'not an address\n');
    expect(() => new PayoutDenylistFile(path)).toThrow(ConfigError);
    const a = '0x' + 'ab'.repeat(20);
    const b = '0x' + 'CD'.repeat(20);
    writeFileSync(path, `${a}\n`);
    const file = new PayoutDenylistFile(path);
    expect(file.current().has(a.toUpperCase().replace('0X', '0x'))).toBe(true);
    expect(file.current().has(b)).toBe(false);
    writeFileSync(path, `${a}\n${b}\n`);
    expect(file.current().has(b.toLowerCase())).toBe(true);
    unlinkSync(path);
    expect(() => file.current()).toThrow(DomainError);
  });
});
