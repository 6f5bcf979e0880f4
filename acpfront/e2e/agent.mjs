// A scripted ACP agent built with the official TypeScript SDK, for the
// end-to-end test of `whale-ls acp` (acp.test.mjs). Each prompt's first text
// block is a JSON array of steps, run in order:
//   {"method": M, "params": P}  send client request M (sessionId added) and
//                               report the answer as an agent_message_chunk:
//                               "ok <result JSON>" or "error <code> <message>"
//   {"toolCall": ID}            announce an unfinished edit tool call
//   {"toolCallDone": ID}        mark it completed
//   {"waitCancel": true}        end the turn with stopReason "cancelled" once
//                               session/cancel came (at once if it came)
// The steps are the first text block that is a JSON array (an editor may send
// other blocks before it); a prompt without one gets "no steps" back.
// initialize's result carries the clientCapabilities it got and the agent's
// pid in _meta; session/new's carries the mcpServers it got. authenticate
// accepts its one method, as an editor that authenticates before its first
// session (CodeCompanion) expects.
import { Readable, Writable } from 'node:stream';
import { agent, ndJsonStream } from '@agentclientprotocol/sdk';

const canceled = new Map(); // sessionId -> {done, wake}

function cancelState(sessionId) {
    if (!canceled.has(sessionId)) {
        let wake;
        const p = new Promise(r => (wake = r));
        canceled.set(sessionId, { done: false, wake, p });
    }
    return canceled.get(sessionId);
}

/** The first text block of prompt that parses as a JSON array, or null. */
function promptSteps(prompt) {
    for (const block of prompt) {
        if (block.type !== 'text') continue;
        try {
            const v = JSON.parse(block.text.trim());
            if (Array.isArray(v)) return v;
        } catch {
            // not the steps
        }
    }
    return null;
}

const app = agent()
    .onRequest('initialize', ({ params }) => ({
        protocolVersion: 1,
        agentCapabilities: { loadSession: false },
        authMethods: [{ id: 'scripted-key', name: 'Scripted key' }],
        agentInfo: { name: 'scripted-agent', title: 'Scripted Agent', version: '1.0.0' },
        _meta: { clientCapabilities: params.clientCapabilities, pid: process.pid },
    }))
    .onRequest('authenticate', () => ({}))
    .onRequest('session/new', ({ params }) => ({ sessionId: 'S1', _meta: { mcpServers: params.mcpServers } }))
    .onNotification('session/cancel', ({ params }) => {
        const st = cancelState(params.sessionId);
        st.done = true;
        st.wake();
    })
    .onRequest('session/prompt', async ({ params, client }) => {
        const sessionId = params.sessionId;
        const say = text =>
            client.notify('session/update', {
                sessionId,
                update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
            });
        const steps = promptSteps(params.prompt);
        if (!steps) {
            await say('no steps: send a JSON array of steps as the prompt');
            return { stopReason: 'end_turn' };
        }
        for (const s of steps) {
            if (s.waitCancel) {
                await cancelState(sessionId).p;
                return { stopReason: 'cancelled' };
            }
            if (s.toolCall) {
                await client.notify('session/update', {
                    sessionId,
                    update: { sessionUpdate: 'tool_call', toolCallId: s.toolCall, title: 'Edit', kind: 'edit', status: 'in_progress' },
                });
                continue;
            }
            if (s.toolCallDone) {
                await client.notify('session/update', {
                    sessionId,
                    update: { sessionUpdate: 'tool_call_update', toolCallId: s.toolCallDone, status: 'completed' },
                });
                continue;
            }
            try {
                const result = await client.request(s.method, { sessionId, ...s.params });
                await say('ok ' + JSON.stringify(result ?? null));
            } catch (e) {
                await say(`error ${e.code} ${e.message}`);
            }
        }
        return { stopReason: 'end_turn' };
    });

const conn = app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
conn.signal.addEventListener('abort', () => process.exit(0));
