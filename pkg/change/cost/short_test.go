package cost_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
)

// A change said short is what its long form says before the figures it is between: a table's row
// gives it without them, and the two never disagree.
func TestAChangeSaidShortIsItsLongFormWithoutItsFigures(t *testing.T) {
	old := cost.Estimate{Min: 48, Max: 48, Source: "prices", Date: "2026-01-01"}
	tests := []struct {
		name      string
		d         cost.Delta
		short     string
		unchanged bool
	}{
		{"dearer", cost.Delta{Old: old, New: cost.Estimate{Min: 72, Max: 72}, Min: 24, Max: 24}, "+$24.00/month", false},
		{"the same", cost.Delta{Old: old, New: old}, "unchanged", true},
		{"a size not priced", cost.Delta{Old: old, New: cost.Estimate{Min: 48, Max: 48, Unknown: []string{"huge"}}},
			"not known, not counting huge", false},
		{"a change with a size not priced", cost.Delta{Old: old, New: cost.Estimate{Min: 60, Max: 60, Unknown: []string{"huge"}}, Min: 12, Max: 12},
			"+$12.00/month, not counting huge", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Short(); got != tt.short {
				t.Errorf("short: %q, want %q", got, tt.short)
			}
			if long := tt.d.String(); len(long) < len(tt.short)+2 || long[:len(tt.short)+2] != tt.short+" (" {
				t.Errorf("the long form %q does not begin with %q", long, tt.short+" (")
			}
			if got := tt.d.Unchanged(); got != tt.unchanged {
				t.Errorf("unchanged: %t, want %t", got, tt.unchanged)
			}
		})
	}
	notKnown := cost.Delta{New: old, OldNotKnown: true}
	if notKnown.Short() != notKnown.String() || notKnown.Unchanged() {
		t.Errorf("a change not known is said whole and is not unchanged: %q", notKnown.Short())
	}
}
