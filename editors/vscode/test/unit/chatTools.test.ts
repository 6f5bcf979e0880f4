import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exactlyOnceProblems } from '../e2e/chatTools';

const catalog = ['read_file', 'edit', 'multi_edit', 'update_plan'];

test('exactlyOnceProblems: each whale tool once, from the wanted source', () => {
    for (const tc of [
        {
            name: 'language-model tools',
            names: ['read_file', 'whale_read_file', 'whale_edit', 'whale_multi_edit', 'whale_update_plan'],
            source: 'languageModelTools' as const,
            want: [] as RegExp[],
        },
        {
            name: 'MCP tools',
            names: ['mcp_whale-ls_read_file', 'mcp_whale-ls_edit', 'mcp_whale-ls_multi_edit', 'mcp_whale-ls_update_plan', 'copilot_x'],
            source: 'mcp' as const,
            want: [],
        },
        {
            name: 'both',
            names: ['whale_read_file', 'mcp_whale-ls_read_file', 'whale_edit', 'whale_multi_edit', 'whale_update_plan'],
            source: 'languageModelTools' as const,
            want: [/^read_file is there 2 times \(whale_read_file, mcp_whale-ls_read_file\)$/],
        },
        {
            name: 'one missing',
            names: ['whale_read_file', 'whale_multi_edit', 'whale_update_plan'],
            source: 'languageModelTools' as const,
            want: [/^edit is missing$/],
        },
        {
            name: 'wrong source',
            names: ['whale_read_file', 'whale_edit', 'whale_multi_edit', 'whale_update_plan'],
            source: 'mcp' as const,
            want: [/^read_file comes from the wrong source/, /^edit/, /^multi_edit/, /^update_plan/],
        },
        {
            name: 'grouped away',
            names: ['whale_read_file', 'whale_edit', 'whale_multi_edit', 'activate_fallback_whale_update_plan_1'],
            source: 'languageModelTools' as const,
            want: [/^update_plan is missing$/, /^other tools name whale: activate_fallback_whale_update_plan_1$/],
        },
    ]) {
        const got = exactlyOnceProblems(tc.names, catalog, tc.source);
        assert.equal(got.length, tc.want.length, `exactlyOnceProblems(${tc.name}) = ${JSON.stringify(got)}, want ${tc.want.length} problems`);
        tc.want.forEach((re, i) => assert.match(got[i], re, `exactlyOnceProblems(${tc.name})[${i}]`));
    }
});

// The tool list the chat of code-server 4.139.1 sent a model in agent mode
// with the extension before #14 (language-model tools and, by default, the
// MCP server definition): 22 MCP tools and 17 whale_* tools, the other five
// whale_* tools grouped behind an activate_… tool.
const recordedBefore = [
    'create_directory',
    'create_file',
    'create_new_jupyter_notebook',
    'create_new_workspace',
    'edit_notebook_file',
    'file_search',
    'grep_search',
    'get_errors',
    'copilot_getNotebookSummary',
    'get_vscode_api',
    'github_repo',
    'github_text_search',
    'insert_edit_into_file',
    'install_extension',
    'list_dir',
    'memory',
    'read_file',
    'read_notebook_cell_output',
    'replace_string_in_file',
    'resolve_memory_file_uri',
    'run_notebook_cell',
    'run_vscode_command',
    'session_store_sql',
    'view_image',
    'vscode_askQuestions',
    'vscode_listCodeUsages',
    'vscode_renameSymbol',
    'vscode_searchExtensions_internal',
    'create_and_run_task',
    'get_task_output',
    'get_terminal_output',
    'kill_terminal',
    'manage_todo_list',
    'run_in_terminal',
    'runSubagent',
    'send_to_terminal',
    'setup_tools_createNewWorkspace',
    'terminal_last_command',
    'terminal_selection',
    'testFailure',
    'mcp_whale-ls_apply_patch',
    'mcp_whale-ls_edit',
    'mcp_whale-ls_fetch',
    'mcp_whale-ls_grep',
    'mcp_whale-ls_list_dir',
    'mcp_whale-ls_load_skill',
    'mcp_whale-ls_multi_edit',
    'mcp_whale-ls_read_file',
    'mcp_whale-ls_request_user_input',
    'mcp_whale-ls_search_files',
    'mcp_whale-ls_shell_cancel',
    'mcp_whale-ls_shell_run',
    'mcp_whale-ls_shell_wait',
    'mcp_whale-ls_todo_add',
    'mcp_whale-ls_todo_list',
    'mcp_whale-ls_todo_remove',
    'mcp_whale-ls_todo_update',
    'mcp_whale-ls_update_plan',
    'mcp_whale-ls_web_fetch',
    'mcp_whale-ls_web_search',
    'mcp_whale-ls_write',
    'mcp_whale-ls_write_stdin',
    'whale_apply_patch',
    'whale_edit',
    'whale_fetch',
    'whale_grep',
    'whale_list_dir',
    'whale_load_skill',
    'whale_multi_edit',
    'whale_read_file',
    'whale_request_user_input',
    'whale_search_files',
    'whale_shell_cancel',
    'whale_shell_run',
    'whale_shell_wait',
    'whale_todo_add',
    'whale_todo_list',
    'whale_todo_remove',
    'whale_todo_update',
    'activate_fallback_whale_update_plan_1',
];

test('exactlyOnceProblems fails on the tool list recorded before the fix', () => {
    const catalog = recordedBefore.filter((n) => n.startsWith('mcp_whale-ls_')).map((n) => n.slice('mcp_whale-ls_'.length));
    assert.equal(catalog.length, 22);
    const problems = exactlyOnceProblems(recordedBefore, catalog, 'languageModelTools');
    const all = problems.join('\n');
    assert.ok(problems.includes('edit is there 2 times (mcp_whale-ls_edit, whale_edit)'), all);
    assert.equal(problems.filter((p) => / is there 2 times /.test(p)).length, 17, all);
    // The chat grouped five whale_* tools behind an activate_… tool; their MCP twins stayed.
    assert.equal(problems.filter((p) => / comes from the wrong source /.test(p)).length, 5, all);
    assert.ok(problems.includes('other tools name whale: activate_fallback_whale_update_plan_1'), all);
});
