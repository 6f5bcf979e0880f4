package mcphost

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Candidate is one searchable item: an id and the text fields it is found
// by. Name words weigh more than description words.
type Candidate struct {
	ID          string
	Name        string
	Description string
}

// Hit is a ranked candidate.
type Hit struct {
	ID    string
	Score float64
}

// BM25 parameters (the usual defaults) and the weight of name tokens.
const (
	bm25K1     = 1.2
	bm25B      = 0.75
	nameWeight = 3
)

// Rank orders docs by BM25 relevance to query and returns at most max hits
// with a positive score. Tokens are lower-case letter/digit runs, split at
// underscores, dashes, dots and camelCase boundaries; a query token also
// matches candidate tokens it is a prefix of (at half weight), and plural
// endings are folded, so "issue", "issues" and "iss" all find "issues". Ties keep the docs' order.
//
// Words that say nothing about a tool ("a", "to", "my", "please", "tool")
// are left out of the query, and a candidate must match at least half of
// the words that remain, so that a request no tool serves ("send an email
// to my boss") finds nothing rather than whatever shares one word with it.
func Rank(query string, docs []Candidate, max int) []Hit {
	seen := map[string]bool{}
	qs := slices.DeleteFunc(tokens(query), func(q string) bool { // each word once, first places kept; no filler words
		dup := seen[q]
		seen[q] = true
		return dup || stopWords[q]
	})
	need := (len(qs) + 1) / 2
	if len(qs) == 0 || len(docs) == 0 || max <= 0 {
		return nil
	}
	type docTerms struct {
		tf  map[string]float64
		len float64
	}
	terms := make([]docTerms, len(docs))
	var total float64
	for i, d := range docs {
		tf := map[string]float64{}
		n := 0.0
		for _, t := range tokens(d.Name) {
			tf[t] += nameWeight
			n += nameWeight
		}
		for _, t := range tokens(d.Description) {
			tf[t]++
			n++
		}
		terms[i] = docTerms{tf, n}
		total += n
	}
	avg := total / float64(len(docs))
	if avg == 0 {
		avg = 1
	}
	// match gives a query token's frequency in a candidate: exact matches,
	// plus half the frequency of words the token is a prefix of.
	match := func(tf map[string]float64, q string) float64 {
		f := tf[q]
		if len(q) >= 3 {
			for t, n := range tf {
				if t != q && strings.HasPrefix(t, q) {
					f += n / 2
				}
			}
		}
		return f
	}
	N := float64(len(docs))
	var hits []Hit
	for i, d := range docs {
		score, matched := 0.0, 0
		for _, q := range qs {
			df := 0.0
			for _, o := range terms {
				if match(o.tf, q) > 0 {
					df++
				}
			}
			f := match(terms[i].tf, q)
			if f == 0 {
				continue
			}
			matched++
			idf := math.Log(1 + (N-df+0.5)/(df+0.5))
			score += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*terms[i].len/avg))
		}
		if score > 0 && matched >= need {
			hits = append(hits, Hit{ID: d.ID, Score: score})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].Score > hits[b].Score })
	if len(hits) > max {
		hits = hits[:max]
	}
	return hits
}

// stopWords are query words that say nothing about which tool is meant
// (as tokens makes them: lower case, plurals folded).
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the to of for in on at by with from into about and or but not no
		i me my mine we our us you your it its this that these those there here some any all each every
		is are was were be been am do doe did can could would should will shall may might must
		please want need let just also then so than as if when what which who how
		tool`) {
		stopWords[stem(w)] = true
	}
}

// tokens splits text into lower-case words at non-alphanumerics and at
// camelCase boundaries.
func tokens(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, stem(strings.ToLower(string(cur))))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && len(cur) > 0 && i > 0 && unicode.IsLower(rs[i-1]) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// stem folds the plural endings of English words ("issues" → "issue",
// "queries" → "query"), the one inflection tool searches trip over most.
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}
