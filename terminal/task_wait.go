package terminal

// AnnounceWait tells the task's Sink, when it is a WaitSink, that the task
// waits for input as d says (ReasonWaitingForInput or
// ReasonPasswordPrompt; other reasons are ignored). A wait is announced
// once: again only after the task printed more, so a model that polls a
// waiting task does not pull the user's focus each time.
func (t *Task) AnnounceWait(d Diagnosis) {
	secret := d.Reason == ReasonPasswordPrompt
	if !secret && d.Reason != ReasonWaitingForInput {
		return
	}
	if t.stream == nil {
		return
	}
	ws, ok := t.stream.sink.(WaitSink)
	if !ok {
		return
	}
	at := t.received.Load()
	if t.announcedAt.Swap(at+1) == at+1 {
		return
	}
	ws.Waiting(t.info.ID, secret, shorten(lastLine(t.tail(1<<10)), 120))
}
