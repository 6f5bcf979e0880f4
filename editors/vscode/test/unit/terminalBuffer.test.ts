import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineEndings, TerminalOutput, exitLine, terminalName } from '../../src/terminalBuffer';

test('LineEndings converts lone LF, also across chunks', () => {
    for (const tc of [
        { in: ['a\nb\n'], want: 'a\r\nb\r\n' },
        { in: ['a\r\nb'], want: 'a\r\nb' },
        { in: ['a\r', '\nb'], want: 'a\r\nb' },
        { in: ['a', '\n', '\n'], want: 'a\r\n\r\n' },
        { in: ['\r\r\n\n'], want: '\r\r\n\r\n' },
        { in: ['', '\n'], want: '\r\n' },
    ]) {
        const le = new LineEndings();
        const got = tc.in.map((c) => le.convert(c)).join('');
        assert.equal(got, tc.want, `convert(${JSON.stringify(tc.in)})`);
    }
});

test('TerminalOutput keeps output until open, then passes it through', () => {
    const out = new TerminalOutput(true);
    out.write('one\n', 1);
    out.write('two\n', 2);
    const seen: string[] = [];
    assert.equal(out.isOpen, false);
    out.open((d) => seen.push(d));
    assert.deepEqual(seen, ['one\r\ntwo\r\n']);
    out.write('three', 3);
    assert.deepEqual(seen, ['one\r\ntwo\r\n', 'three']);
});

test('TerminalOutput drops repeated or older seq', () => {
    const out = new TerminalOutput(false);
    const seen: string[] = [];
    out.open((d) => seen.push(d));
    out.write('a', 1);
    out.write('a', 1);
    out.write('old', 0);
    out.write('b', 2);
    out.write('local'); // no seq: always shown
    assert.deepEqual(seen, ['a', 'b', 'local']);
});

test('TerminalOutput in PTY mode leaves line endings alone', () => {
    const out = new TerminalOutput(false);
    out.write('x\ny', 1);
    let got = '';
    out.open((d) => (got += d));
    assert.equal(got, 'x\ny');
});

test('TerminalOutput bounds what it keeps while closed', () => {
    const out = new TerminalOutput(false);
    const chunk = 'z'.repeat(1 << 20);
    for (let i = 0; i < 8; i++) {
        out.write(chunk, i);
    }
    let got = '';
    out.open((d) => (got += d));
    assert.ok(got.startsWith('[whale: earlier output was dropped]'));
    assert.ok(got.length <= TerminalOutput.maxPending + 100);
});

test('exitLine and terminalName', () => {
    assert.match(exitLine(0), /exit code 0/);
    assert.match(exitLine(3), /exit code 3/);
    assert.match(exitLine(-1, 'SIGKILL'), /killed by SIGKILL/);
    assert.equal(terminalName('go test ./...'), 'whale: go test ./...');
    assert.equal(terminalName('x', 'Tests'), 'whale: Tests');
    assert.ok(terminalName('a'.repeat(200)).length <= 'whale: '.length + 60);
});
