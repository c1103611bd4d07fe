package operation_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
)

func TestOnlyDestroyRunsTheDependantsFirst(t *testing.T) {
	tests := []struct {
		op   operation.Name
		want bool
	}{
		{operation.Preview, false},
		{operation.Up, false},
		{operation.Refresh, false},
		{operation.Drift, false},
		{operation.Status, false},
		{operation.Destroy, true},
		{operation.Kubeconfig, false},
		{operation.Adopt, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.op), func(t *testing.T) {
			if got := tt.op.Reverse(); got != tt.want {
				t.Errorf("%s.Reverse() = %t, want %t", tt.op, got, tt.want)
			}
		})
	}
}
