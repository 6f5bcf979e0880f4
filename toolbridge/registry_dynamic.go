package toolbridge

import (
	"fmt"
	"sync"
)

// dynamicTools are the tools added to a Registry after it was built (MCP
// tools that a search, or a call by exact name, activated). Like the
// built-in ones, their specs are frozen when added and never change; a name
// is added at most once, and so is an alias.
type dynamicTools struct {
	mu        sync.RWMutex
	tools     map[string]Tool
	aliases   map[string]string // alias → name (Tool.Aliases)
	order     []string
	listeners []func(added []Spec)
}

// Add registers tools after start, in order, and returns the specs of those
// that were new. A name already in the registry (built in or added before)
// is skipped: existing specs never change. An alias already taken (by a
// name or an alias) is left to its owner. A tool without an object input
// schema is an error and nothing is added. Listeners are called with the
// new specs, after the tools are dispatchable, outside the registry's lock.
func (r *Registry) Add(tools ...Tool) ([]Spec, error) {
	for _, t := range tools {
		if t.Spec.InputSchema == nil || t.Spec.InputSchema.Type != "object" {
			return nil, fmt.Errorf("tool %q has no object input schema", t.Spec.Name)
		}
	}
	d := &r.dynamic
	d.mu.Lock()
	var added []Spec
	for _, t := range tools {
		if _, builtin := r.tools[t.Spec.Name]; builtin {
			continue
		}
		if _, dup := d.tools[t.Spec.Name]; dup {
			continue
		}
		if d.tools == nil {
			d.tools = map[string]Tool{}
			d.aliases = map[string]string{}
		}
		t.Spec.InputSchema = t.Spec.InputSchema.Clone()
		d.tools[t.Spec.Name] = t
		d.order = append(d.order, t.Spec.Name)
		for _, alias := range t.Aliases {
			_, builtin := r.tools[alias]
			_, added := d.tools[alias]
			_, aliasBuiltin := r.aliases[alias]
			_, aliasAdded := d.aliases[alias]
			if !builtin && !added && !aliasBuiltin && !aliasAdded {
				d.aliases[alias] = t.Spec.Name
			}
		}
		s := t.Spec
		s.InputSchema = s.InputSchema.Clone()
		added = append(added, s)
	}
	listeners := append([]func(added []Spec){}, d.listeners...)
	d.mu.Unlock()
	if len(added) > 0 {
		for _, fn := range listeners {
			fn(added)
		}
	}
	return added, nil
}

// OnToolsAdded registers fn to be told about tools added with Add (for
// example to notify clients that the catalog grew). fn must not call Add.
func (r *Registry) OnToolsAdded(fn func(added []Spec)) {
	r.dynamic.mu.Lock()
	defer r.dynamic.mu.Unlock()
	r.dynamic.listeners = append(r.dynamic.listeners, fn)
}

// Has reports whether a tool of this name can be dispatched.
func (r *Registry) Has(name string) bool {
	_, ok := r.lookup(name)
	return ok
}

// lookup finds a built-in or added tool by its name, else by an alias.
func (r *Registry) lookup(name string) (Tool, bool) {
	if t, ok := r.tools[name]; ok {
		return t, true
	}
	r.dynamic.mu.RLock()
	defer r.dynamic.mu.RUnlock()
	if t, ok := r.dynamic.tools[name]; ok {
		return t, true
	}
	if owner, ok := r.aliases[name]; ok {
		return r.tools[owner], true
	}
	if owner, ok := r.dynamic.aliases[name]; ok {
		return r.dynamic.tools[owner], true
	}
	return Tool{}, false
}

// addedSpecs returns copies of the added tools' specs, in the order added.
func (r *Registry) addedSpecs() []Spec {
	r.dynamic.mu.RLock()
	defer r.dynamic.mu.RUnlock()
	out := make([]Spec, 0, len(r.dynamic.order))
	for _, name := range r.dynamic.order {
		s := r.dynamic.tools[name].Spec
		s.InputSchema = s.InputSchema.Clone()
		out = append(out, s)
	}
	return out
}

// addedNames returns the added tools' names, in the order added.
func (r *Registry) addedNames() []string {
	r.dynamic.mu.RLock()
	defer r.dynamic.mu.RUnlock()
	return append([]string(nil), r.dynamic.order...)
}
