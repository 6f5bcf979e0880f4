import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerForOption, answerForText, approvalModal, choiceItems, promptSurface } from '../../src/promptMapping';
import type { PromptParams } from '../../src/requests';

const approval: PromptParams = {
    promptId: 'p1',
    kind: 'approval',
    title: 'Run /usr/bin/rm?',
    detail: 'command: rm -rf build\nprogram: /usr/bin/rm\nargv: rm -rf build\ncwd: /w\nrule: ask rm',
    options: [
        { id: 'deny', label: 'Deny' },
        { id: 'allow_once', label: 'Allow once' },
        { id: 'allow_session', label: 'Allow for this session' },
    ],
};

test('approval is a modal with Allow once, Allow for this session, Deny', () => {
    const q = approvalModal(approval);
    assert.equal(q.message, 'Run /usr/bin/rm?');
    assert.match(q.detail, /program: \/usr\/bin\/rm/);
    assert.deepEqual(q.buttons.map((b) => b.label), ['Allow once', 'Allow for this session', 'Deny']);
    assert.deepEqual(approvalModal({ ...approval, options: [] }).buttons.map((b) => b.id), ['allow_once', 'allow_session', 'deny']);
});

test('answers: a pick, a text, and dismissal', () => {
    assert.deepEqual(answerForOption('p1', { id: 'allow_once', label: 'Allow once' }), { promptId: 'p1', optionId: 'allow_once' });
    assert.deepEqual(answerForOption('p1', undefined), { promptId: 'p1', cancelled: true });
    assert.deepEqual(answerForText('p2', 'main'), { promptId: 'p2', text: 'main' });
    assert.deepEqual(answerForText('p2', ''), { promptId: 'p2', text: '' });
    assert.deepEqual(answerForText('p2', undefined), { promptId: 'p2', cancelled: true });
});

test('surfaces by kind', () => {
    assert.equal(promptSurface(approval), 'modal');
    assert.equal(promptSurface({ ...approval, kind: 'choice' }), 'quickPick');
    assert.equal(promptSurface({ ...approval, kind: 'choice', options: [] }), 'inputBox');
    assert.equal(promptSurface({ ...approval, kind: 'text', options: [] }), 'inputBox');
    assert.deepEqual(choiceItems({ ...approval, kind: 'choice', options: [{ id: 'a', label: '' }] }), [{ id: 'a', label: 'a' }]);
});
