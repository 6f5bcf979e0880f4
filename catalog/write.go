package catalog

import (
	"context"
	_ "embed"

	"github.com/whale-ls/whale-ls/edits"
	"github.com/whale-ls/whale-ls/toolbridge"
)

//go:embed write.md
var writeDoc string

type writeInput struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

// Write is write: a whole file's new content, in the file's own encoding
// and line endings when it exists.
func Write(c *Committer) toolbridge.Tool {
	spec := toolbridge.Spec{
		Name:        "write",
		Description: writeDoc,
		Group:       toolbridge.GroupEdit,
		InputSchema: toolbridge.Object([]string{"file_path", "content"}, map[string]*toolbridge.Schema{
			"file_path": toolbridge.PathStr("File to create or overwrite, inside the workspace; missing folders are created."),
			"content":   toolbridge.Str("The whole new content of the file, never a fragment or a placeholder for unchanged parts."),
		}),
	}
	return toolbridge.Define(spec, func(ctx context.Context, in writeInput) (toolbridge.Result, error) {
		chs, note, err := c.commitPath(ctx, []string{in.FilePath}, writePlanner(in))
		if err != nil {
			return toolbridge.Result{}, err
		}
		return chs[0].result(note, chs[0].plan.Applied), nil
	})
}

// writePlanner plans a write on the file's current content (the commit's
// and the preview's plan).
func writePlanner(in writeInput) planner {
	return func(load loader) ([]*fileChange, error) {
		src, err := load(in.FilePath, true)
		if err != nil {
			return nil, err
		}
		plan, err := edits.PlanWrite(src.t.Rel, src.raw, src.exists, in.Content)
		if err != nil {
			return nil, editFailure(src.shown, err)
		}
		return []*fileChange{src.change(plan)}, nil
	}
}
