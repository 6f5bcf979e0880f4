// The chat end-to-end test's scenarios, shared by the scripted model (which
// makes the calls, test/chat/model/extension.ts) and the driver (which sends
// the message, answers what the user is asked and checks the outcome,
// test/chat/driver.ts). Each runs as one turn in a new chat.

export type ScenarioName =
    'read' | 'edit' | 'shell' | 'write-command' | 'ask-allow' | 'ask-deny' | 'user-input' | 'plan' | 'whale-agent-edit' | 'whale-undo-hunk' | 'copilot-edit';

export interface Expect {
    name: ScenarioName;
    /** What the turn shows. */
    title: string;
    /** whale's result text the model must get back. */
    result: RegExp;
    /** A result text that would mean the scenario went wrong. */
    notResult?: RegExp;
    /** VS Code's confirmations in the chat, and whale's exec-boundary approvals, the turn must show. */
    confirmations: number;
    approvals: number;
    /** The agent picked in the chat before the turn (default: VS Code's Agent). */
    agent?: 'Whale' | 'Agent';
}

export const expectations: Expect[] = [
    { name: 'read', title: 'read a file', result: /hello from the workspace/, confirmations: 0, approvals: 0 },
    { name: 'edit', title: 'edit an open, unsaved buffer', result: /^Edited[\s\S]*hi from the chat/, confirmations: 1, approvals: 0 },
    { name: 'shell', title: 'a read-only shell command', result: /whale-chat-shell-ok[\s\S]*hello\.txt/, confirmations: 0, approvals: 0 },
    { name: 'write-command', title: 'a command that writes and that the exec boundary lets run', result: /made-dir/, confirmations: 1, approvals: 0 },
    { name: 'ask-allow', title: 'a command the exec boundary asks about, allowed once', result: /touched-allow/, confirmations: 0, approvals: 1 },
    { name: 'ask-deny', title: 'a command the exec boundary asks about, denied', result: /touch/, notResult: /touched-deny/, confirmations: 0, approvals: 1 },
    { name: 'user-input', title: 'request_user_input answered in the editor', result: /blue/, confirmations: 0, approvals: 0 },
    { name: 'plan', title: 'update_plan shown in the Whale view', result: /Show the chat plan|plan/i, confirmations: 0, approvals: 0 },
    {
        name: 'whale-agent-edit',
        title: 'an edit in the Whale agent, shown in the chat and the editor, then Start Over',
        result: /^Edited[\s\S]*hi from the Whale agent/,
        // VS Code may remember an earlier "Allow" of whale_edit: the count is not this turn's point.
        confirmations: -1,
        approvals: 0,
        agent: 'Whale',
    },
    {
        name: 'whale-undo-hunk',
        title: 'Undo of one hunk in the editor takes a whale edit back through the journal',
        result: /^Edited[\s\S]*undone soon/,
        confirmations: -1,
        approvals: 0,
        agent: 'Whale',
    },
    // Copilot's own edit tool in the default agent, for comparison: what VS Code shows for an edit of the chat's editing session.
    { name: 'copilot-edit', title: "Copilot's own edit tool, for comparison", result: /./, confirmations: -1, approvals: 0, agent: 'Agent' },
];

/** The file the Whale agent's edit changes, and its text before the turn. */
export const agentEditFile = 'src/agent.ts';
export const undoFile = 'src/undo.ts';
export const undoBefore = 'export const state = "before";\n';
export const agentEditBefore = 'const greeting = "hello";\n\nexport function greet(name: string): string {\n    return `${greeting}, ${name}`;\n}\n';

/** The chat message that starts a scenario. */
export function message(name: ScenarioName): string {
    return `whale-chat:${name} please`;
}

/** The scenario a chat message names, if any. */
export function scenarioOf(text: string): ScenarioName | undefined {
    const m = /whale-chat:([a-z-]+)/.exec(text);
    return m && expectations.some((e) => e.name === m[1]) ? (m[1] as ScenarioName) : undefined;
}
