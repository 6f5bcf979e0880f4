// Pure output handling for whale terminals: VS Code drops what a
// Pseudoterminal writes before open(), and a terminal needs "\r\n" where a
// pipe-mode task prints a lone "\n".

/** Converts lone "\n" to "\r\n", remembering a "\r" at the end of a chunk. */
export class LineEndings {
    private lastWasCR = false;

    convert(data: string): string {
        let out = '';
        for (let i = 0; i < data.length; i++) {
            const c = data[i];
            if (c === '\n' && !(i === 0 ? this.lastWasCR : data[i - 1] === '\r')) {
                out += '\r\n';
            } else {
                out += c;
            }
        }
        if (data.length > 0) {
            this.lastWasCR = data[data.length - 1] === '\r';
        }
        return out;
    }
}

/**
 * Output of one task on its way to a Pseudoterminal: kept until the
 * terminal is open, then passed straight through. Output is ordered by the
 * server's `seq`; a repeated or older seq is dropped.
 */
export class TerminalOutput {
    private pending: string[] = [];
    private sink: ((data: string) => void) | undefined;
    private lastSeq = -Infinity;
    private readonly endings: LineEndings | undefined;
    /** Characters kept while closed, at most; older output is cut with a marker. */
    static readonly maxPending = 4 << 20;
    private pendingChars = 0;
    private cut = false;

    constructor(pipeMode: boolean) {
        this.endings = pipeMode ? new LineEndings() : undefined;
    }

    /** Adds output; `seq` is optional for local messages (exit line). */
    write(data: string, seq?: number): void {
        if (seq !== undefined) {
            if (seq <= this.lastSeq) {
                return;
            }
            this.lastSeq = seq;
        }
        const text = this.endings ? this.endings.convert(data) : data;
        if (this.sink) {
            this.sink(text);
            return;
        }
        this.pending.push(text);
        this.pendingChars += text.length;
        while (this.pendingChars > TerminalOutput.maxPending && this.pending.length > 1) {
            this.pendingChars -= this.pending.shift()?.length ?? 0;
            this.cut = true;
        }
    }

    /** The terminal opened: flush what was kept and pass the rest through. */
    open(sink: (data: string) => void): void {
        const kept = (this.cut ? '[whale: earlier output was dropped]\r\n' : '') + this.pending.join('');
        this.pending = [];
        this.pendingChars = 0;
        this.sink = sink;
        if (kept) {
            sink(kept);
        }
    }

    /** The terminal closed: keep output again (for a terminal reopened later). */
    close(): void {
        this.sink = undefined;
    }

    get isOpen(): boolean {
        return this.sink !== undefined;
    }
}

/** The line a terminal shows when its task ended. */
export function exitLine(exitCode: number, signal?: string): string {
    const how = signal ? `killed by ${signal}` : `exit code ${exitCode}`;
    const color = exitCode === 0 && !signal ? '32' : '31';
    return `\r\n\x1b[${color}m[whale: task ended, ${how}]\x1b[0m\r\n`;
}

/** "whale: <command>", shortened for the terminal tab. */
export function terminalName(command: string, title?: string): string {
    const text = (title || command).replace(/\s+/g, ' ').trim();
    return 'whale: ' + (text.length > 60 ? text.slice(0, 57) + '...' : text);
}
