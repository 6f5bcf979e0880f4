package catalog

import (
	"context"
	_ "embed"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed multi_edit.md
var multiEditDoc string

type multiEditInput struct {
	FilePath string     `json:"file_path"`
	Edits    []editStep `json:"edits"`
}

// MultiEdit is multi_edit: several edits of one file, applied in order,
// all or none.
func MultiEdit(c *Committer) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "multi_edit",
		Description: multiEditDoc,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object([]string{"file_path", "edits"}, map[string]*toolbridge.Schema{
			"file_path": toolbridge.PathStr("File to change, inside the workspace."),
			"edits":     toolbridge.Arr("Steps applied in order, each to the result of the previous one; all succeed or nothing is written.", toolbridge.Object([]string{"search", "replace"}, stepSchema())),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in multiEditInput) (toolbridge.Result, error) {
		if len(in.Edits) == 0 {
			return toolbridge.Result{}, toolbridge.Fail(toolbridge.CodeInvalidInput, "edits is empty; give at least one {search, replace} step, or use edit for a single change")
		}
		steps := make([]edits.Edit, len(in.Edits))
		for i, e := range in.Edits {
			steps[i] = edits.Edit{Search: e.Search, Replace: e.Replace, All: e.All}
		}
		return c.editSteps(ctx, in.FilePath, steps)
	})
}
