// The "Whale" view in the Explorer: the assistant's plan (whale/plan) and
// todos (whale/todos).
import * as vscode from 'vscode';
import type { PlanParams, TodoItem, TodosParams } from './requests';

type Node =
    | { kind: 'section'; label: string; description?: string; tooltip?: string; children: Node[] }
    | { kind: 'item'; label: string; status: string };

/** The label of a todo item, whatever shape its server version sends. */
export function todoLabel(t: TodoItem): string {
    for (const k of ['content', 'text', 'title', 'step'] as const) {
        const v = t[k];
        if (typeof v === 'string' && v) {
            return v;
        }
    }
    return JSON.stringify(t);
}

function icon(status: string): vscode.ThemeIcon {
    switch (status) {
        case 'completed':
        case 'done':
            return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
        case 'in_progress':
        case 'in-progress':
        case 'active':
            return new vscode.ThemeIcon('sync~spin');
        case 'cancelled':
        case 'canceled':
            return new vscode.ThemeIcon('circle-slash');
        default:
            return new vscode.ThemeIcon('circle-large-outline');
    }
}

export class WhaleView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
    private plan: PlanParams | undefined;
    private todos: TodosParams | undefined;
    private readonly changed = new vscode.EventEmitter<void>();
    readonly onDidChangeTreeData = this.changed.event;

    setPlan(p: PlanParams): void {
        this.plan = p;
        this.changed.fire();
    }

    setTodos(t: TodosParams): void {
        this.todos = t;
        this.changed.fire();
    }

    getChildren(node?: Node): Node[] {
        if (node) {
            return node.kind === 'section' ? node.children : [];
        }
        const roots: Node[] = [];
        if (this.plan && (this.plan.steps?.length || this.plan.explanation)) {
            const steps = this.plan.steps ?? [];
            const done = steps.filter((s) => s.status === 'completed').length;
            roots.push({
                kind: 'section',
                label: 'Plan',
                description: `${done}/${steps.length}`,
                tooltip: this.plan.explanation,
                children: steps.map((s) => ({ kind: 'item', label: s.step, status: s.status })),
            });
        }
        if (this.todos && this.todos.items?.length) {
            const items = this.todos.items;
            roots.push({
                kind: 'section',
                label: 'Todos',
                description: `${items.filter((t) => t.status === 'completed' || t.status === 'done').length}/${items.length}`,
                children: items.map((t) => ({ kind: 'item', label: todoLabel(t), status: String(t.status ?? 'pending') })),
            });
        }
        return roots;
    }

    getTreeItem(node: Node): vscode.TreeItem {
        if (node.kind === 'section') {
            const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
            item.description = node.description;
            item.tooltip = node.tooltip;
            return item;
        }
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.iconPath = icon(node.status);
        item.description = node.status.replace(/_/g, ' ');
        item.tooltip = `${node.label} (${node.status})`;
        return item;
    }

    dispose(): void {
        this.changed.dispose();
    }
}
