package replay

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Options bound a replay.
type Options struct {
	// Commits is how many commits to replay, the newest (0: every one).
	Commits int
	// MaxCases, when set, stops after the commit that reaches it.
	MaxCases int
	// Only, when set, replays only the commits whose hash starts with it.
	Only string
	// Variant, when set, runs only the cases whose variant it matches.
	Variant *regexp.Regexp
	// Runner runs the cases.
	Runner Runner
	// Progress, when set, gets a line per commit.
	Progress io.Writer
}

// Summary counts a replay's cases.
type Summary struct {
	Commits, Files       int
	Cases                int
	Applied, Refused     int
	Wrong                int
	MustRefuse           int // cases that had to be refused (all refused unless wrong)
	Missed               int // cases that had to apply and were refused
	NoNextStep           int // refusals whose text names no next step
	MissedByCode         map[string]int
	ByVariant            map[string]*VariantCount
	WrongCases, Examples []Result // every wrong case; refusals without a next step and misses, a few
}

// VariantCount counts one variant's cases.
type VariantCount struct{ Cases, Applied, Refused, Wrong int }

// Replay walks repo's history, builds every commit's cases and runs them.
func Replay(ctx context.Context, repo *Repo, o Options) (Summary, error) {
	s := Summary{ByVariant: map[string]*VariantCount{}, MissedByCode: map[string]int{}}
	commits, err := repo.Commits(ctx, o.Commits)
	if err != nil {
		return s, err
	}
	for _, commit := range commits {
		if err := ctx.Err(); err != nil {
			return s, err
		}
		if !strings.HasPrefix(commit, o.Only) {
			continue
		}
		chs, err := repo.Changes(ctx, commit)
		if err != nil {
			return s, err
		}
		if len(chs) == 0 {
			continue
		}
		s.Commits++
		var paths []string
		// Each file's cases run in a session of their own, so that what
		// one file's cases read and wrote is not in another's ledger.
		var groups [][]Case
		n := 0
		for _, ch := range chs {
			// A new file has no wrong-file variant: only the patch
			// formats can make it.
			var wrong *Target
			if ch.Old != nil {
				if paths == nil {
					if paths, err = repo.Files(ctx, commit+"^"); err != nil {
						return s, err
					}
				}
				if p := wrongTargetFor(ch.Path, paths); p != "" {
					if b, err := repo.Show(ctx, commit+"^", p); err == nil && isReplayText(b) {
						wrong = &Target{Path: p, Data: b}
					}
				}
			}
			cs, err := FileCases(ch, wrong)
			if err != nil {
				return s, err
			}
			groups = append(groups, cs)
			n += len(cs)
			s.Files++
		}
		if c, ok := CommitCase(commit, chs); ok {
			groups = append(groups, []Case{c})
			n++
		}
		for _, g := range groups {
			if o.Variant != nil {
				g = slices.DeleteFunc(g, func(c Case) bool { return !o.Variant.MatchString(c.Variant) })
			}
			if err := s.run(ctx, o.Runner, g); err != nil {
				return s, err
			}
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s: %d files, %d cases; so far %s\n", short(commit), len(chs), n, s.Counts())
		}
		if o.MaxCases > 0 && s.Cases >= o.MaxCases {
			break
		}
	}
	return s, nil
}

// run runs cases in one workspace.
func (s *Summary) run(ctx context.Context, runner Runner, cases []Case) error {
	if len(cases) == 0 {
		return nil
	}
	w, err := runner.Open()
	if err != nil {
		return err
	}
	defer w.Close()
	for _, c := range cases {
		r, err := w.Run(ctx, c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		s.add(r)
	}
	return nil
}

func (s *Summary) add(r Result) {
	s.Cases++
	v := s.ByVariant[r.Case.Variant]
	if v == nil {
		v = &VariantCount{}
		s.ByVariant[r.Case.Variant] = v
	}
	v.Cases++
	if r.Case.Refuse() {
		s.MustRefuse++
	}
	switch r.Outcome {
	case Applied:
		s.Applied++
		v.Applied++
	case Refused:
		s.Refused++
		v.Refused++
		if !r.Case.Refuse() {
			s.Missed++
			s.MissedByCode[r.Envelope.Code]++
			// Every miss that is not an ambiguity, and a few that are.
			if len(s.Examples) < 40 || r.Envelope.Code != "search_not_unique" {
				s.Examples = append(s.Examples, r)
			}
		}
	case Wrong:
		s.Wrong++
		v.Wrong++
		s.WrongCases = append(s.WrongCases, r)
	}
	if r.NoNextStep {
		s.NoNextStep++
		s.Examples = append(s.Examples, r)
	}
}

// Counts is the one-line summary: cases, applied, refused, wrong.
func (s Summary) Counts() string {
	return fmt.Sprintf("cases %d, applied %d, refused %d (%d had to be, %d missed), wrong %d", s.Cases, s.Applied, s.Refused, s.MustRefuse, s.Missed, s.Wrong)
}

// Report writes the counts, a table per variant and the wrong cases.
func (s Summary) Report(w io.Writer) {
	fmt.Fprintf(w, "replayed %d commits, %d file changes: %s; refusals without a next step %d\n", s.Commits, s.Files, s.Counts(), s.NoNextStep)
	var names []string
	for n := range s.ByVariant {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(s.MissedByCode) > 0 {
		var codes []string
		for c, n := range s.MissedByCode {
			codes = append(codes, fmt.Sprintf("%s %d", c, n))
		}
		sort.Strings(codes)
		fmt.Fprintf(w, "missed, by code: %s\n", strings.Join(codes, ", "))
	}
	fmt.Fprintf(w, "%-28s %7s %7s %7s %5s\n", "variant", "cases", "applied", "refused", "wrong")
	for _, n := range names {
		v := s.ByVariant[n]
		fmt.Fprintf(w, "%-28s %7d %7d %7d %5d\n", n, v.Cases, v.Applied, v.Refused, v.Wrong)
	}
	for _, r := range s.WrongCases {
		fmt.Fprintf(w, "WRONG %s: %s\n  tool said (%s): %s\n", r.Case.Name, r.Detail, r.Envelope.Code, firstLine(r.Envelope.Text))
	}
	for _, r := range s.Examples {
		tag := "MISSED"
		if r.NoNextStep {
			tag = "NO NEXT STEP"
		}
		fmt.Fprintf(w, "%s %s (%s): %s\n", tag, r.Case.Name, r.Envelope.Code, firstLine(r.Envelope.Text))
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}
