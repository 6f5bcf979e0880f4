package tasks

import (
	"fmt"
	"strings"
)

// Cell is one result's size.
type Cell struct {
	Bytes, Tokens int
}

// Header returns the Markdown table's header: the task, whale, each peer,
// and whale's tokens as a multiple of the leanest peer's.
func Header() string {
	cols := append([]string{"task", "whale"}, Peers...)
	cols = append(cols, "whale ÷ leanest")
	return "| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat(" --- |", len(cols))
}

// Line returns a task's table row; cells are whale's and then each peer's,
// in the order of Peers.
func Line(task string, cells []Cell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s |", task)
	lean := 0
	for i, c := range cells {
		fmt.Fprintf(&b, " %d / %d |", c.Bytes, c.Tokens)
		if i > 0 && (lean == 0 || c.Tokens < lean) {
			lean = c.Tokens
		}
	}
	fmt.Fprintf(&b, " %.2f |", float64(cells[0].Tokens)/float64(max(lean, 1)))
	return b.String()
}
