package toolbridge

import "context"

// ProgressFunc receives a running call's progress: a message for people
// ("everything: 2 of 5") reported by the tool while it works.
type ProgressFunc func(message string)

type progressKey struct{}

// WithProgress returns a context in which ReportProgress calls f: a front
// end sets it for a call whose client shows progress.
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// ReportProgress passes message to the progress function of ctx, if the
// front end set one (WithProgress); otherwise it does nothing.
func ReportProgress(ctx context.Context, message string) {
	if f, ok := ctx.Value(progressKey{}).(ProgressFunc); ok && f != nil {
		f(message)
	}
}

// WantsProgress reports whether ctx has a progress function, so that a
// tool asks for progress only when someone will see it.
func WantsProgress(ctx context.Context) bool {
	f, ok := ctx.Value(progressKey{}).(ProgressFunc)
	return ok && f != nil
}
