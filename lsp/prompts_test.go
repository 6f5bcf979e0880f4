package lsp

import (
	"testing"
	"time"
)

func TestPlainDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{30 * time.Minute, "30 minutes"},
		{time.Minute, "1 minute"},
		{90 * time.Second, "1.5 minutes"},
		{1500 * time.Millisecond, "1.5 seconds"},
		{time.Second, "1 second"},
		{2 * time.Minute, "2 minutes"},
	} {
		if got := plainDuration(tc.d); got != tc.want {
			t.Errorf("plainDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
