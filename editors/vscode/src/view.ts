// The "Whale" view in the Explorer: the assistant's plan (whale/plan) and
// todos (whale/todos), and the changes whale made (src/changesView.ts feeds
// the model of src/changes.ts).
import * as vscode from 'vscode';
import { droppedView, entryView, fileView, type ChangeNode, type ChangesModel, type ItemView } from './changes';
import { ChatPlans } from './chatPlans';
import type { PlanParams, TodoItem, TodosParams } from './requests';

export type Node =
    | { kind: 'section'; label: string; description?: string; tooltip?: string; contextValue?: string; children: Node[] }
    | { kind: 'item'; label: string; status: string }
    | { kind: 'change'; node: ChangeNode };

export const changesSectionContext = 'whale.changesSection';

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
    private readonly plans = new ChatPlans();
    private todos: TodosParams | undefined;
    private changes: ChangesModel | undefined;
    private readonly changed = new vscode.EventEmitter<void>();
    readonly onDidChangeTreeData = this.changed.event;

    /** The journal's entries to show, or none. */
    setChanges(m: ChangesModel | undefined): void {
        this.changes = m;
        this.changed.fire();
    }

    /** The view's data changed (the model given to setChanges). */
    refresh(): void {
        this.changed.fire();
    }

    setPlan(p: PlanParams): void {
        this.plans.set(p);
        this.changed.fire();
    }

    /** A whale tool was called from the chat session (undefined: unknown): the view shows that chat's plan. */
    chatCalled(session: string | undefined): void {
        if (this.plans.called(session)) {
            this.changed.fire();
        }
    }

    /** A chat was closed or cleared: its plan is no longer shown. */
    chatDisposed(session: string): void {
        if (this.plans.disposed(session)) {
            this.changed.fire();
        }
    }

    setTodos(t: TodosParams): void {
        this.todos = t;
        this.changed.fire();
    }

    getChildren(node?: Node): Node[] {
        if (node) {
            if (node.kind === 'change') {
                return this.changes ? this.changes.children(node.node).map((n) => ({ kind: 'change', node: n })) : [];
            }
            return node.kind === 'section' ? node.children : [];
        }
        const roots: Node[] = [];
        const plan = this.plans.current();
        if (plan && (plan.steps?.length || plan.explanation)) {
            const steps = plan.steps ?? [];
            const done = steps.filter((s) => s.status === 'completed').length;
            roots.push({
                kind: 'section',
                label: 'Plan',
                description: `${done}/${steps.length}`,
                tooltip: plan.explanation,
                children: steps.map((s) => ({ kind: 'item', label: s.step, status: s.status })),
            });
        }
        if (this.todos && this.todos.items?.length) {
            const items = this.todos.items;
            roots.push({
                kind: 'section',
                label: 'Todos',
                tooltip: "The workspace's todo list: whale keeps it across chats and sessions, for every assistant that works here",
                description: `${items.filter((t) => t.status === 'completed' || t.status === 'done').length}/${items.length}`,
                children: items.map((t) => ({ kind: 'item', label: todoLabel(t), status: t.status ?? 'pending' })),
            });
        }
        if (this.changes && this.changes.size > 0) {
            roots.push({
                kind: 'section',
                label: 'Changes',
                description: `${this.changes.size}`,
                tooltip: 'What whale changed, newest first: click a file for its diff; right-click an entry to revert it',
                contextValue: changesSectionContext,
                children: this.changes.roots().map((n) => ({ kind: 'change', node: n })),
            });
        }
        return roots;
    }

    getTreeItem(node: Node): vscode.TreeItem {
        if (node.kind === 'change') {
            return changeItem(node);
        }
        if (node.kind === 'section') {
            const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
            item.id = `whale.section/${node.label}`;
            item.description = node.description;
            item.tooltip = node.tooltip;
            item.contextValue = node.contextValue;
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

function changeItem(node: Node & { kind: 'change' }): vscode.TreeItem {
    const n = node.node;
    const v: ItemView = n.kind === 'entry' ? entryView(n.entry) : n.kind === 'file' ? fileView(n.entry, n.file) : droppedView(n.count);
    const item = new vscode.TreeItem(v.label, v.collapsible ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = v.id;
    item.description = v.description;
    item.tooltip = v.tooltip;
    item.contextValue = v.contextValue;
    item.iconPath = new vscode.ThemeIcon(v.icon);
    if (n.kind === 'file') {
        item.command = { command: 'whale.changes.openDiff', title: 'Open Change', arguments: [node] };
    }
    return item;
}
