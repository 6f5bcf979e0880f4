package terminal

// CloseInheritedOnExec does nothing on Windows: a child inherits only the
// handles it is given (Go starts processes with an explicit handle list).
func CloseInheritedOnExec() {}
