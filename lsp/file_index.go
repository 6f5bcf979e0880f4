package lsp

import (
	"context"
	"path/filepath"

	"github.com/whale-ls/whale-ls/attach"
	"github.com/whale-ls/whale-ls/search"
	"github.com/whale-ls/whale-ls/session"
)

// showIndexProgress shows work-done progress for each workspace folder
// whose file index is still being built when the client says it is
// initialized (a server may not send requests before that), if the client
// supports work-done progress. The progress ends with the index's status:
// ready with its count of files, or off and why.
func (s *Server) showIndexProgress() {
	s.mu.Lock()
	sess, supported := s.session, s.caps.workDoneProgress
	s.mu.Unlock()
	if sess == nil || !supported {
		return
	}
	for _, x := range sess.FileIndexes() {
		if x.Status().State == search.IndexBuilding {
			go s.indexProgress(x)
		}
	}
}

func (s *Server) indexProgress(x *search.Index) {
	ctx := context.Background()
	work, err := s.newWorkDone(ctx, nil, "whale-index")
	if err != nil {
		return
	}
	if work.begin("whale: indexing "+filepath.Base(x.Status().Folder), "") != nil {
		return
	}
	st := x.Wait(ctx) // returns when the index is ready, off or closed
	_ = work.end(st.String())
}

// attachStatus answers whale/status on the attach socket (what `whale-ls
// settings` prints): the status line of each workspace folder's file index.
func attachStatus(sess *session.Session) func() attach.Status {
	return func() attach.Status {
		st := attach.Status{FileIndexes: []string{}}
		for _, x := range sess.FileIndexStatus() {
			st.FileIndexes = append(st.FileIndexes, x.String())
		}
		return st
	}
}
