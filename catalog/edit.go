package catalog

import (
	"context"
	_ "embed"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed edit.md
var editDoc string

type editStep struct {
	Search  string `json:"search"`
	Replace string `json:"replace"`
	All     bool   `json:"all"`
}

type editInput struct {
	FilePath string `json:"file_path"`
	editStep
}

func stepSchema() map[string]*toolbridge.Schema {
	return map[string]*toolbridge.Schema{
		"search":  toolbridge.Str("Text to find, copied from the file as it is now (without read_file's line-number prefixes), with two or three surrounding lines when it is short or repeated; it must match exactly one place unless all is true."),
		"replace": toolbridge.Str("Text to put in its place (may be empty to delete)."),
		"all":     toolbridge.Bool("Replace every place the search matches instead of requiring exactly one (default false)."),
	}
}

// Edit is edit: one tolerant search-and-replace in a file, committed
// through c (to the editor's buffer when the file is open there).
func Edit(c *Committer) toolbridge.Tool {
	props := stepSchema()
	props["file_path"] = toolbridge.PathStr("File to change, inside the workspace.")
	spec := toolbridge.Spec{
		Name:        "edit",
		Description: editDoc,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object([]string{"file_path", "search", "replace"}, props),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in editInput) (toolbridge.Result, error) {
		return c.editSteps(ctx, in.FilePath, []edits.Edit{{Search: in.Search, Replace: in.Replace, All: in.All}})
	})
}
