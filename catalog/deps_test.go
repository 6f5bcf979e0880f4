package catalog

import "testing"

func TestDepsClose(t *testing.T) {
	d := &Deps{}
	var order []int
	d.OnClose(func() { order = append(order, 1) })
	d.OnClose(func() { order = append(order, 2) })
	d.Close()
	d.Close()
	if len(order) != 2 || order[0] != 2 {
		t.Errorf("closers ran %v, want [2 1] once", order)
	}
}
