// The parts of the extension's own package.json the code reads at run time.
import type * as vscode from 'vscode';

/** package.json as far as the extension reads it (VS Code types it as any). */
export interface Manifest {
    version?: string;
    contributes?: {
        configuration?: { properties?: Record<string, unknown> };
        languageModelTools?: Array<{ name: string }>;
    };
}

export function manifest(extension: vscode.Extension<unknown>): Manifest {
    return extension.packageJSON as Manifest;
}
