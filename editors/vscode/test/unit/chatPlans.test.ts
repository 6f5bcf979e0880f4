import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatPlans } from '../../src/chatPlans';

const plan = (step: string) => ({ explanation: '', steps: [{ step, status: 'pending' }] });

test('a plan belongs to the chat whose call came last', () => {
    const p = new ChatPlans();
    assert.equal(p.called('chat-a'), false, 'no plan yet: nothing shown changes');
    p.set(plan('a1'));
    assert.equal(p.current()?.steps?.[0].step, 'a1');
    assert.equal(p.called('chat-b'), true, "a new chat hides the first chat's plan");
    assert.equal(p.current(), undefined, 'the new chat has no plan');
    p.set(plan('b1'));
    assert.equal(p.called('chat-a'), true, 'back in the first chat');
    assert.equal(p.current()?.steps?.[0].step, 'a1', "the first chat's plan again");
    assert.equal(p.called(undefined), false, 'a call from an unknown chat changes nothing');
    assert.equal(p.disposed('chat-b'), false, 'closing another chat does not change what is shown');
    assert.equal(p.called('chat-b'), true);
    assert.equal(p.current(), undefined, "a closed chat's plan is gone");
    assert.equal(p.disposed('chat-a'), false);
    assert.equal(p.called('chat-a'), false, 'nothing was shown, nothing is');
});

test('without the chat of a call, every plan is one chat’s', () => {
    const p = new ChatPlans();
    p.set(plan('x'));
    assert.equal(p.called(undefined), false);
    assert.equal(p.current()?.steps?.[0].step, 'x');
    assert.equal(p.disposed('chat-a'), false);
    assert.equal(p.current()?.steps?.[0].step, 'x');
});
