// Pure: what the status bar item says about whale (src/status.ts).

export type ServerState = 'starting' | 'running' | 'stopped' | 'missing';

export interface StatusFacts {
    state: ServerState;
    /** Tools of the running server (whale/tools); undefined while unknown. */
    tools?: number;
    /** `whale.shell.sandbox` in effect. */
    sandbox: string;
    /** `whale.edits.review` in effect. */
    review: string;
    /** `whale.execBoundary.mode` in effect. */
    boundary: string;
}

const icons: Record<ServerState, string> = { starting: '$(sync~spin)', running: '$(check)', stopped: '$(error)', missing: '$(warning)' };

const states: Record<ServerState, string> = {
    starting: 'starting',
    running: 'running',
    stopped: 'stopped',
    missing: 'not found (install whale-ls or set whale.serverPath)',
};

/** The item's text: an icon for the state, "Whale", and the number of tools when running. */
export function statusText(f: StatusFacts): string {
    return `${icons[f.state]} Whale${f.state === 'running' && f.tools !== undefined ? ` ${f.tools}` : ''}`;
}

/** The tooltip: one line per fact, for a person. */
export function statusTooltip(f: StatusFacts): string {
    const sandbox = f.sandbox === 'off' ? 'off (commands may write anywhere their user can)' : f.sandbox;
    const review =
        { off: 'off (changes apply at once)', ask: 'every change is shown first', 'ask-outside-open': 'changes to files not open are shown first' }[f.review] ??
        f.review;
    return [
        `whale-ls: ${states[f.state]}`,
        `Tools: ${f.tools === undefined ? 'not known yet' : `${f.tools}`}`,
        `Sandbox: ${sandbox}`,
        `Exec boundary: ${f.boundary}`,
        `Review: ${review}`,
        '',
        'Click for the output, a restart and the settings.',
    ].join('\n');
}
