package replay

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"testing"
)

var (
	replayAll     = flag.Bool("replay.all", false, "replay every commit of the history (make replay), or the -replay.commits newest when given, without the bounded slice's case limit")
	replayRepo    = flag.String("replay.repo", "", "a local git clone to replay (default: the project's own checkout)")
	replayCommits = flag.Int("replay.commits", 6, "how many of the newest commits the bounded slice replays")
	replayCases   = flag.Int("replay.cases", 250, "the bounded slice stops after the commit that reaches this many cases")
	replayVariant = flag.String("replay.variant", "", "run only the cases whose variant this regular expression matches")
	replayOnly    = flag.String("replay.only", "", "replay only the commits whose hash starts with this (with -replay.all: from the whole history)")
)

// minHistory is the fewest commits the replay of the project's own
// checkout wants before it runs: fewer means a shallow or fresh checkout,
// whose cases would not say much. A clone named with -replay.repo is
// replayed whatever its length.
const minHistory = 20

// TestReplay replays real commits through the real tools and fails on any
// wrong case (success with other bytes than the commit's, or a change
// where one had to be refused) and on any refusal whose text does not name
// the next step. Without -replay.all it replays the newest few commits
// (-replay.commits, oldest of them first) and stops after the commit that
// reaches -replay.cases cases, which keeps it to a few seconds.
func TestReplay(t *testing.T) {
	ctx := context.Background()
	dir := *replayRepo
	if dir == "" {
		dir = "."
	}
	repo, err := OpenRepo(ctx, dir)
	if err != nil {
		t.Skipf("no git history to replay: %v", err)
	}
	n, shallow, err := repo.History(ctx)
	switch {
	case err != nil:
		t.Skipf("cannot read the git history of %s: %v", repo.Dir, err)
	case shallow:
		t.Skipf("%s is a shallow clone (%d commits): the replay needs the history; run git fetch --unshallow", repo.Dir, n)
	case n < minHistory && *replayRepo == "":
		t.Skipf("%s has %d commits, fewer than the %d the replay needs", repo.Dir, n, minHistory)
	}
	// The sessions' journals and locks go to folders of the test.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	o := Options{Commits: *replayCommits, MaxCases: *replayCases, Only: *replayOnly, Runner: Runner{Dir: t.TempDir()}}
	if *replayAll {
		o.Commits, o.MaxCases = 0, 0
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "replay.commits" {
				o.Commits = *replayCommits // the newest ones, however many cases
			}
		})
		o.Progress = os.Stderr
	}
	if *replayVariant != "" {
		o.Variant = regexp.MustCompile(*replayVariant)
	}
	s, err := Replay(ctx, repo, o)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s.Report(&out)
	if *replayAll {
		fmt.Print(out.String())
	} else {
		t.Log("\n" + out.String())
	}
	if s.Cases == 0 {
		t.Fatalf("the %d newest commits of %s gave no case", o.Commits, repo.Dir)
	}
	if s.Wrong > 0 {
		t.Errorf("%d of %d cases wrong (see the WRONG lines above)", s.Wrong, s.Cases)
	}
	if s.NoNextStep > 0 {
		t.Errorf("%d refusals name no next step", s.NoNextStep)
	}
}
