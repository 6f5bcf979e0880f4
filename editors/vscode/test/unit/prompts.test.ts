import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    answerForOption,
    answerForText,
    approvalModal,
    choiceItems,
    firstChangedLine,
    hunkItems,
    hunkLine,
    promptSurface,
    reviewAnswer,
    reviewDiffTitle,
    reviewHunkIds,
} from '../../src/promptMapping';
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

test('approval is a modal with Deny first (primary, focused), then Allow once, Allow for this session', () => {
    const q = approvalModal(approval);
    assert.equal(q.message, 'Run /usr/bin/rm?');
    assert.match(q.detail, /program: \/usr\/bin\/rm/);
    assert.deepEqual(
        q.buttons.map((b) => b.label),
        ['Deny', 'Allow once', 'Allow for this session'],
    );
    assert.deepEqual(
        approvalModal({ ...approval, options: [] }).buttons.map((b) => b.id),
        ['deny', 'allow_once', 'allow_session'],
    );
    assert.match(q.detail, /Cancel or Escape denies as well\.$/);
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

// Reviews ----------------------------------------------------------------

const review: PromptParams = {
    promptId: 'r1',
    kind: 'review',
    title: 'Review the change apply_patch proposes to a.txt, b.txt',
    detail: '3 hunks in 2 files. Accept all, reject, or accept some hunks.',
    options: [
        { id: 'accept', label: 'Accept' },
        { id: 'reject', label: 'Reject' },
    ],
    timeoutMs: 120000,
    files: [
        {
            path: '/w/a.txt',
            uri: 'file:///w/a.txt',
            before: 'a1\na2\na3\na4\na5\na6\na7\n',
            after: 'a1\nA2\na3\na4\na5\nA6\na7\n',
            hunks: [
                { id: 'h1', header: '@@ -2,1 +2,1 @@', diff: ' a1\n-a2\n+A2\n a3\n' },
                { id: 'h2', header: '@@ -6,1 +6,1 @@', diff: ' a5\n-a6\n+A6\n a7\n' },
            ],
        },
        {
            path: '/w/new.txt',
            uri: 'file:///w/new.txt',
            before: '',
            after: 'new\n',
            hunks: [{ id: 'h3', header: '@@ create new.txt @@', diff: '--- new.txt\n+++ new.txt\n@@ -0,0 +1 @@\n+new\n' }],
        },
    ],
};

test('a review is shown as a review, not as a choice', () => {
    assert.equal(promptSurface(review), 'review');
});

test('review answers: accept all, some hunks, all hunks one by one, reject with and without a reason, cancel', () => {
    assert.deepEqual(reviewAnswer(review, { kind: 'accept' }), { promptId: 'r1', optionId: 'accept' });
    assert.deepEqual(reviewAnswer(review, { kind: 'hunks', ids: ['h1'] }), { promptId: 'r1', optionId: 'accept', hunks: ['h1'] });
    // In the review's order, each once, whatever order they were checked in.
    assert.deepEqual(reviewAnswer(review, { kind: 'hunks', ids: ['h3', 'h1', 'h3'] }), { promptId: 'r1', optionId: 'accept', hunks: ['h1', 'h3'] });
    assert.deepEqual(reviewAnswer(review, { kind: 'hunks', ids: ['h2', 'h3', 'h1'] }), { promptId: 'r1', optionId: 'accept' });
    assert.deepEqual(reviewAnswer(review, { kind: 'reject', reason: '  keep the old name \n' }), {
        promptId: 'r1',
        optionId: 'reject',
        text: 'keep the old name',
    });
    assert.deepEqual(reviewAnswer(review, { kind: 'reject', reason: '   ' }), { promptId: 'r1', optionId: 'reject' });
    assert.deepEqual(reviewAnswer(review, { kind: 'reject' }), { promptId: 'r1', optionId: 'reject' });
    assert.deepEqual(reviewAnswer(review, { kind: 'cancel' }), { promptId: 'r1', cancelled: true });
    assert.deepEqual(reviewHunkIds(review), ['h1', 'h2', 'h3']);
});

test('hunk items: the header as label, the file with several files, the first changed line, where to reveal', () => {
    assert.deepEqual(hunkItems(review), [
        { id: 'h1', label: '@@ -2,1 +2,1 @@', description: 'a.txt', detail: '-a2', file: 0, line: 1 },
        { id: 'h2', label: '@@ -6,1 +6,1 @@', description: 'a.txt', detail: '-a6', file: 0, line: 5 },
        { id: 'h3', label: '@@ create new.txt @@', description: 'new.txt', detail: '+new', file: 1, line: 0 },
    ]);
    const one = { ...review, files: [review.files![0]] };
    assert.equal(hunkItems(one)[0].description, undefined);
    assert.equal(firstChangedLine(' ctx\n+' + 'x'.repeat(200) + '\n').length, 120);
    assert.equal(firstChangedLine(' only context\n'), '');
    assert.equal(hunkLine('@@ -3,0 +4,2 @@'), 3);
    assert.equal(hunkLine('@@ -1 +1 @@'), 0);
    assert.equal(hunkLine('@@ -5,2 +0,0 @@'), 0);
    assert.equal(hunkLine('@@ delete a.txt @@'), 0);
});

test('review diff titles', () => {
    assert.equal(reviewDiffTitle(review.files![0]), 'a.txt ↔ proposed by Whale');
    assert.equal(reviewDiffTitle(review.files![1]), 'new.txt (new file) ↔ proposed by Whale');
    assert.equal(
        reviewDiffTitle({
            path: 'C:\\w\\old.txt',
            uri: 'file:///c%3A/w/old.txt',
            before: 'x\n',
            after: '',
            hunks: [{ id: 'h', header: '@@ delete old.txt @@', diff: '' }],
        }),
        'old.txt ↔ deleted by Whale',
    );
});

test('other prompt kinds are shown as before', () => {
    assert.equal(promptSurface({ ...review, kind: 'choice' }), 'quickPick');
    assert.equal(promptSurface({ ...review, kind: 'approval' }), 'modal');
});
